/*@playground
title: Assignment 2: sum with shared memory
about: Write the kernel: every block adds its elements of `input` in shared memory (a tree, one
  __syncthreads() per level) and thread 0 adds the block's sum to `total` with one atomicAdd. Elements
  past n count as 0.
param n: int = 4096 range 1..67108864
buffer input: int[n] in random(seed=11, min=0, max=100)
buffer total: int[1] out zeros
block: 256
grid: ceil(n / block.x)
shared: block.x * 4
reference: block_sum_reference
tolerance: 0
# The hidden part.
grade case small: n = 1000, seed = 3
grade case odd: n = 100003, seed = 4
grade case tiny: n = 5
grade time: 2 s
grade score: correct 70, speed 30
*/
extern "C" __global__ void block_sum(const int* input, int* total, int n)
{
    extern __shared__ int partial[];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    partial[tid] = i < n ? input[i] : 0;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(total, partial[0]);
}

#ifdef PLAYGROUND_REFERENCE
static void block_sum_reference(const int* input, int* total, int n)
{
    long long sum = 0;
    for (int i = 0; i < n; ++i) sum += input[i];
    total[0] = (int)(unsigned)(unsigned long long)sum;
}
#endif
