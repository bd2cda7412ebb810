/*@playground
title: Matrix multiply, naive
category: Matrices
tags: matrix multiply, 2D, global memory, arithmetic intensity
about: C = A × B with A m×k and B k×n, one thread per element of C: thread (row, col) walks along row
  `row` of A and column `col` of B and adds the k products. Every element of A is read n times and
  every element of B m times from global memory, so the kernel leans on memory traffic; a recent
  GPU's L1 and L2 caches absorb much of it. The tiled multiply stages tiles in shared memory to reuse
  each load 16 times; the register-blocked one keeps an 8×8 block of C per thread in registers. The
  window shows both beside this one (`compare:`). Try: set m = n = k = 1000 and read the three
  columns' times. On an H100 the caches already serve the naive reads well, so the tiles barely help
  (0.39 ms against 0.33 ms), while register blocking is about 3x faster (0.12 ms): reuse in registers
  is what pays on a GPU with big caches. On the CPU backend the order is upside down (the tiled multiply
  is several times slower than the naive one: its barriers cost a CPU more than the reuse saves): CPU
  times say how the emulation runs, not how a GPU does. The memory figures (Memory panel, or
  `run --memory`) show where the reuse comes from: here each of the two loads makes k requests per warp
  to global memory; the tiled multiply (open it with the figures on) makes 16 times fewer global
  requests and reads the rest from shared memory, without bank conflicts (the lanes of a half-warp read
  one word of the A tile together: a broadcast).
param m: int = 150 range 1..4096
param n: int = 120 range 1..4096
param k: int = 100 range 1..4096
buffer a: float[m * k] in random(seed=3, min=-1, max=1)
buffer b: float[k * n] in random(seed=4, min=-1, max=1)
buffer c: float[m * n] out zeros
block: 16 x 16
grid: ceil(n / block.x) x ceil(m / block.y)
problem: n x m
view c: image(n, m) colormap=coolwarm
reference: matmul_loops
compare: matrix/tiled_matmul matrix/matmul_register_blocked
tolerance: 1e-3
show: Compare, Timing, Memory
*/
extern "C" __global__ void matmul_naive(const float* a, const float* b, float* c, int m, int n, int k)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < m && col < n) {
        float sum = 0.0f;
        for (int i = 0; i < k; ++i) sum += a[row * k + i] * b[i * n + col];
        c[row * n + col] = sum;
    }
}

#ifdef PLAYGROUND_REFERENCE
static void matmul_loops(const float* a, const float* b, float* c, int m, int n, int k)
{
    for (int row = 0; row < m; ++row)
        for (int col = 0; col < n; ++col) {
            double sum = 0;
            for (int i = 0; i < k; ++i) sum += double(a[row * k + i]) * b[i * n + col];
            c[row * n + col] = float(sum);
        }
}
#endif
