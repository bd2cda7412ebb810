"""Lesson 10: matrix transpose, naive and with a shared-memory tile.

The naive kernel reads rows but writes columns (uncoalesced writes).
The tiled kernel stages a 32x32 tile in shared memory so that both the
read and the write walk along rows. The tile is 32x33: the extra column
keeps the column-wise reads from shared memory free of bank conflicts.

This module uses C++ templates, so we pass no_extern_c=True and mark
the kernels extern "C" ourselves to keep their names unmangled.
"""
import sys

import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
from pycuda.compiler import SourceModule

mod = SourceModule("""
#define TILE 32
#define ROWS 8      // the block is 32 x 8; each thread moves 4 elements

// Written once as a template, so it would work for any element type.
template <typename T>
__device__ void transpose_tile(const T *in, T *out, int rows, int cols)
{
    __shared__ T tile[TILE][TILE + 1];

    // Read a 32x32 tile of `in`, row by row.
    int x = blockIdx.x * TILE + threadIdx.x;
    for (int j = 0; j < TILE; j += ROWS) {
        int y = blockIdx.y * TILE + threadIdx.y + j;
        if (x < cols && y < rows)
            tile[threadIdx.y + j][threadIdx.x] = in[y * cols + x];
    }
    __syncthreads();

    // Write it to `out` with the block indices swapped, again row by row.
    x = blockIdx.y * TILE + threadIdx.x;                  // column in `out`
    for (int j = 0; j < TILE; j += ROWS) {
        int y = blockIdx.x * TILE + threadIdx.y + j;      // row in `out`
        if (x < rows && y < cols)
            out[y * rows + x] = tile[threadIdx.x][threadIdx.y + j];
    }
}

extern "C" {

__global__ void transpose_naive(const float *in, float *out, int rows, int cols)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;   // column in `in`
    int y = blockIdx.y * blockDim.y + threadIdx.y;   // row in `in`
    if (x < cols && y < rows)
        out[x * rows + y] = in[y * cols + x];
}

__global__ void transpose_tiled(const float *in, float *out, int rows, int cols)
{
    transpose_tile<float>(in, out, rows, cols);
}

}  // extern "C"
""", no_extern_c=True)
transpose_naive = mod.get_function("transpose_naive")
transpose_tiled = mod.get_function("transpose_tiled")

rows, cols = 300, 451
rng = np.random.default_rng(10)
a = rng.random((rows, cols)).astype(np.float32)
out_naive = np.zeros((cols, rows), dtype=np.float32)
out_tiled = np.zeros((cols, rows), dtype=np.float32)

transpose_naive(drv.In(a), drv.Out(out_naive), np.int32(rows), np.int32(cols),
                block=(16, 16, 1), grid=((cols + 15) // 16, (rows + 15) // 16))
transpose_tiled(drv.In(a), drv.Out(out_tiled), np.int32(rows), np.int32(cols),
                block=(32, 8, 1), grid=((cols + 31) // 32, (rows + 31) // 32))

ok_naive = bool(np.array_equal(out_naive, a.T))
ok_tiled = bool(np.array_equal(out_tiled, a.T))
print("naive ok:", ok_naive, " tiled ok:", ok_tiled)
ok = ok_naive and ok_tiled
print("check:", ok)
sys.exit(0 if ok else 1)
