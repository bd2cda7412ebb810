/*@playground
title: Block sums by a shared-memory tree (the debugger's tests)
about: Each block of 64 threads loads its part of the input into shared memory and halves it in a tree,
  one __syncthreads() after each level; thread 0 writes the block's sum. n = 200 leaves the last block
  with 8 elements, the rest of its tile zeros.
param n: int = 200 range 1..100000
param blocks: int = ceil(n / 64)
buffer input: int[n] in ramp(start=1, step=1)
buffer sums: int[blocks] out zeros
block: 64
grid: blocks
reference: block_sums
tolerance: 0
*/
__global__ void tree_sum(const int* input, int* sums, int n)
{
    __shared__ int partial[64];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    partial[tid] = i < n ? input[i] : 0;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (tid < stride)
            partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    if (tid == 0) sums[blockIdx.x] = partial[0];
}

#ifdef PLAYGROUND_REFERENCE
static void block_sums(const int* input, int* sums, int n)
{
    for (int b = 0; b * 64 < n; ++b) {
        int s = 0;
        for (int i = b * 64; i < n && i < b * 64 + 64; ++i) s += input[i];
        sums[b] = s;
    }
}
#endif
