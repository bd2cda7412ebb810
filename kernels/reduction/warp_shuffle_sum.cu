/*@playground
title: Sum with warp shuffles
category: Reductions
tags: warps, __shfl_down_sync, registers, atomics
about: The 32 threads of a warp can read each other's registers with shuffles, no shared memory
  needed. Each step, every lane adds the value of the lane `offset` places above it; after five steps
  (offsets 16, 8, 4, 2, 1) lane 0 holds the sum of its warp and adds it to the total. Keep the block
  size a multiple of 32 so that every warp is full: the 0xffffffff mask promises all 32 lanes take part.
  Try: blocks of 64 and of 1024: the total stays the same; compare the times in the Timing panel.
param n: int = 1000003 range 1..67108864
buffer input: int[n] in random(seed=11, min=0, max=100)
buffer total: int[1] out zeros
block: 256
grid: ceil(n / block.x)
problem: n
view total: table
reference: sum_reference
tolerance: 0
*/
extern "C" __global__ void warp_shuffle_sum(const int* input, int* total, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int value = i < n ? input[i] : 0;
    for (int offset = 16; offset > 0; offset /= 2) {
        value += __shfl_down_sync(0xffffffff, value, offset);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(total, value);
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
