/*@playground
title: Tiled matrix multiply
category: Matrices
tags: shared memory, tiling, data reuse, __syncthreads
about: C = A × B with A m×k and B k×n. Each block computes one tile of C. It walks along k in steps of the tile
  size: all threads copy one element of A's tile and one of B's tile into shared memory, synchronise, multiply
  the two tiles from shared memory, and synchronise again before the next copy overwrites them. Each element
  of A and B is read from global memory once per tile instead of once per product. Use a square block (the
  tile edge is blockDim.x); sizes need not be multiples of it. Try: set m, n and k to 500 and compare the time
  with blocks of 8 x 8, 16 x 16 and 32 x 32. The memory figures (Memory panel, or `run --memory`) count the
  reuse: the two global loads make one request per warp per tile step (ceil(k / 16) each, with 16 x 16 blocks)
  where the naive multiply makes k, and the shared loads in the inner loop have no bank conflicts (a half-warp
  reads one word of the A tile: a broadcast; the B tile's row is 16 neighbouring words).
param m: int = 70 range 1..4096
param n: int = 45 range 1..4096
param k: int = 33 range 1..4096
buffer a: float[m * k] in random(seed=3, min=-1, max=1)
buffer b: float[k * n] in random(seed=4, min=-1, max=1)
buffer c: float[m * n] out zeros
block: 16 x 16
grid: ceil(n / block.x) x ceil(m / block.y)
shared: 2 * block.x * block.y * 4
problem: n x m
view c: image(n, m) colormap=coolwarm
reference: matmul_reference
tolerance: 1e-3
show: Memory
*/
extern "C" __global__ void tiled_matmul(const float* a, const float* b, float* c, int m, int n, int k)
{
    extern __shared__ float tiles[];
    const int tile = blockDim.x;
    float* a_tile = tiles;
    float* b_tile = tiles + tile * tile;
    int row = blockIdx.y * tile + threadIdx.y;
    int col = blockIdx.x * tile + threadIdx.x;

    float sum = 0.0f;
    for (int start = 0; start < k; start += tile) {
        int a_col = start + threadIdx.x;
        int b_row = start + threadIdx.y;
        a_tile[threadIdx.y * tile + threadIdx.x] = (row < m && a_col < k) ? a[row * k + a_col] : 0.0f;
        b_tile[threadIdx.y * tile + threadIdx.x] = (b_row < k && col < n) ? b[b_row * n + col] : 0.0f;
        __syncthreads();
        for (int j = 0; j < tile; ++j) {
            sum += a_tile[threadIdx.y * tile + j] * b_tile[j * tile + threadIdx.x];
        }
        __syncthreads();
    }
    if (row < m && col < n) {
        c[row * n + col] = sum;
    }
}

#ifdef PLAYGROUND_REFERENCE
// Row-major, one dot product per element, accumulated in double: the kernel's float sums differ from it
// only by rounding (the tolerance).
static void matmul_reference(const float* a, const float* b, float* c, int m, int n, int k)
{
    for (int row = 0; row < m; ++row) {
        for (int col = 0; col < n; ++col) {
            double acc = 0;
            for (int j = 0; j < k; ++j) acc += double(a[row * k + j]) * double(b[j * n + col]);
            c[row * n + col] = (float)acc;
        }
    }
}
#endif
