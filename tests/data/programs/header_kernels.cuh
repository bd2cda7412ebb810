// The kernels of header_kernels.cu, kept in a header of their own as a course's exercises often are: a block
// reduction with its shared tile, a kernel overloaded for float and double, and a host helper that launches.
#pragma once

#define SUM_BLOCK 128

// Each block writes the sum of the elements it covers to partial[blockIdx.x].
__global__ void block_sums(const float* in, float* partial, int n)
{
    __shared__ float tile[SUM_BLOCK];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) tile[threadIdx.x] += tile[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = tile[0];
}

__global__ void scale(float* x, float by, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= by;
}

__global__ void scale(double* x, double by, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * by + 0.25;
}

inline int launch_block_sums(const float* in, float* partial, int n)
{
    int blocks = (n + SUM_BLOCK - 1) / SUM_BLOCK;
    block_sums<<<blocks, SUM_BLOCK>>>(in, partial, n);
    return blocks;
}
