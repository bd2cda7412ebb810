/*@playground
title: Matrix multiply with a templated tile size (pasted)
category: Pasted samples
about: C = A x B with a compile-time tile edge, as public samples write it with template <int BLOCK_SIZE>.
  Bounds checks make sizes that are not multiples of the tile work.
kernel: MatrixMulCUDA<16>
param m: int = 53
param n: int = 37
param k: int = 29
buffer c: float[m * n] out zeros
buffer a: float[m * k] in random(seed=11, min=-1, max=1)
buffer b: float[k * n] in random(seed=12, min=-1, max=1)
block: 16 x 16
grid: ceil(n / block.x) x ceil(m / block.y)
problem: n x m
reference: matmul_reference
tolerance: 1e-4
*/
template <int BLOCK_SIZE>
__global__ void MatrixMulCUDA(float* c, const float* a, const float* b, int m, int n, int k)
{
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * BLOCK_SIZE + ty;
    const int col = blockIdx.x * BLOCK_SIZE + tx;
    float acc = 0.0f;
    for (int t = 0; t < k; t += BLOCK_SIZE) {
        As[ty][tx] = (row < m && t + tx < k) ? a[row * k + t + tx] : 0.0f;
        Bs[ty][tx] = (col < n && t + ty < k) ? b[(t + ty) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int e = 0; e < BLOCK_SIZE; ++e) acc += As[ty][e] * Bs[e][tx];
        __syncthreads();
    }
    if (row < m && col < n) c[row * n + col] = acc;
}

#ifdef PLAYGROUND_REFERENCE
// Plain triple loop in double, rounded once: within 1e-4 of the kernel's float sums for k this small.
static void matmul_reference(const float* a, const float* b, float* c, int m, int n, int k)
{
    for (int row = 0; row < m; ++row)
        for (int col = 0; col < n; ++col) {
            double acc = 0;
            for (int e = 0; e < k; ++e) acc += double(a[row * k + e]) * double(b[e * n + col]);
            c[row * n + col] = float(acc);
        }
}
#endif
