/*@playground
title: Sum with a shared-memory tree
category: Reductions
tags: shared memory, __syncthreads, tree reduction, atomics
about: Each block loads one element per thread into shared memory, then adds pairs in a tree: at every
  step the lower half of the active threads adds in the upper half, and __syncthreads() makes each
  step's writes visible before the next step reads them. After log2(blockDim.x) steps thread 0 holds
  the block's sum and adds it to the total with one atomicAdd. Try: remove the __syncthreads() inside
  the loop and watch the total go wrong on the CPU backend in natural or shuffled thread order (reversed
  order hides this race: each thread then runs after the higher ones whose partial sums it reads).
param n: int = 1000003 range 1..67108864
buffer input: int[n] in random(seed=7, min=0, max=100)
buffer total: int[1] out zeros
block: 256
grid: ceil(n / block.x)
shared: block.x * 4
problem: n
view total: table
reference: sum_reference
tolerance: 0
*/
extern "C" __global__ void shared_memory_sum(const int* input, int* total, int n)
{
    extern __shared__ int partial[];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    partial[tid] = i < n ? input[i] : 0;
    __syncthreads();

    // `width` is blockDim.x rounded up to a power of two, so any block size works.
    int width = 1;
    while (width < (int)blockDim.x) width *= 2;
    for (int stride = width / 2; stride > 0; stride /= 2) {
        if (tid < stride && tid + stride < (int)blockDim.x) {
            partial[tid] += partial[tid + stride];
        }
        __syncthreads();
    }
    if (tid == 0) {
        atomicAdd(total, partial[0]);
    }
}

#ifdef PLAYGROUND_REFERENCE
// 64-bit accumulation, then the 32-bit wrap-around the kernel's int atomics would produce.
static void sum_reference(const int* input, int* total, int n)
{
    long long sum = 0;
    for (int i = 0; i < n; ++i) sum += input[i];
    total[0] = (int)(unsigned)(unsigned long long)sum;
}
#endif
