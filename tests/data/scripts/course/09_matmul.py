"""Lesson 9: tiled matrix multiplication with shared memory.

C (M x N) = A (M x K) @ B (K x N), all row-major float32. Each 16x16
block computes one 16x16 tile of C, walking over K one tile at a time:
load a tile of A and a tile of B into shared memory, synchronise,
multiply, synchronise again before the tiles are overwritten.
"""
import sys

import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
from pycuda.compiler import SourceModule

TILE = 16

mod = SourceModule("""
#define TILE %d

__global__ void matmul_tiled(const float *A, const float *B, float *C,
                             int M, int K, int N)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];

    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;

    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        int a_col = t * TILE + threadIdx.x;
        int b_row = t * TILE + threadIdx.y;
        // Out-of-range elements are loaded as 0 so they add nothing.
        As[threadIdx.y][threadIdx.x] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();

        for (int k = 0; k < TILE; ++k)
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }

    if (row < M && col < N)
        C[row * N + col] = acc;
}
""" % TILE)
matmul_tiled = mod.get_function("matmul_tiled")

M, K, N = 150, 130, 170
rng = np.random.default_rng(9)
A = rng.random((M, K)).astype(np.float32)
B = rng.random((K, N)).astype(np.float32)
C = np.zeros((M, N), dtype=np.float32)

# x runs over the columns of C, y over its rows.
grid = ((N + TILE - 1) // TILE, (M + TILE - 1) // TILE)   # (11, 10)
matmul_tiled(drv.In(A), drv.In(B), drv.Out(C),
             np.int32(M), np.int32(K), np.int32(N),
             block=(TILE, TILE, 1), grid=grid)

expected = A @ B
print("C[0, :3] =", C[0, :3], " expected", expected[0, :3])
print("max abs difference: %.2e" % np.abs(C - expected).max())
ok = bool(np.allclose(C, expected, rtol=1e-4, atol=1e-4))
print("check:", ok)
sys.exit(0 if ok else 1)
