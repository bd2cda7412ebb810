/*@playground
title: Reduce at full bandwidth: grid-stride loop and warp shuffles
category: Parallel patterns
tags: reduction, grid-stride loop, warp shuffle, atomics, bandwidth
about: A sum that reads memory as fast as the GPU can. Instead of one thread per element, a fixed grid
  (a few blocks per SM) walks the array with a grid-stride loop: thread t adds elements t,
  t + (all threads), t + 2·(all threads)... in a register, with no synchronisation. Then each warp
  adds its 32 partial sums with shuffles, the warps of a block combine theirs through a little
  shared memory, and one atomicAdd per block adds the block's sum to the total. Only a few hundred
  atomics, against one per element or per warp in the simpler sums. 64-bit totals: 2^26 values of up
  to 100 overflow an int. Try: set `blocks` to 1, then 1024, and watch the bandwidth.
param n: int = 10000019 range 1..268435456
param blocks: int = 528 range 1..65535
buffer input: int[n] in random(seed=7, min=0, max=100)
buffer total: ulonglong[1] out zeros
block: 256
grid: blocks
traffic: n * 4
view total: table
reference: total_of
tolerance: 0
*/
extern "C" __global__ void reduce_grid_stride(const int* input, unsigned long long* total, int n, int blocks)
{
    __shared__ unsigned long long warp_sums[32];
    unsigned long long sum = 0;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) sum += input[i];

    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffff, sum, offset);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        const int warps = (blockDim.x + 31) / 32;
        sum = lane < warps ? warp_sums[lane] : 0;
        for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffff, sum, offset);
        if (lane == 0) atomicAdd(total, sum);
    }
}

#ifdef PLAYGROUND_REFERENCE
static void total_of(const int* input, unsigned long long* total, int n)
{
    unsigned long long sum = 0;
    for (int i = 0; i < n; ++i) sum += (unsigned long long)input[i];
    total[0] = sum;
}
#endif
