/*@playground
title: Templated reduction with cooperative groups (pasted)
category: Pasted samples
about: A templated block reduction written the way public samples write it: cooperative groups for the
  block and its warps, the block size as a template parameter, and one atomicAdd per block.
kernel: reduce<int, 256>
param n: uint = 100003
buffer input: int[n] in random(seed=5, min=0, max=50)
buffer total: int[1] out zeros
block: 256
grid: ceil(n / (block.x * 2))
problem: n
reference: sum_reference
tolerance: 0
*/
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

template <class T, unsigned int blockSize>
__global__ void reduce(const T* input, T* total, unsigned int n)
{
    __shared__ T partial[blockSize];
    cg::thread_block block = cg::this_thread_block();
    const unsigned int tid = block.thread_rank();
    // Each thread first adds two elements that lie a block apart.
    const unsigned int i = blockIdx.x * (blockSize * 2) + threadIdx.x;
    T sum = 0;
    if (i < n) sum += input[i];
    if (i + blockSize < n) sum += input[i + blockSize];
    partial[tid] = sum;
    cg::sync(block);

    for (unsigned int s = blockSize / 2; s > 32; s >>= 1) {
        if (tid < s) partial[tid] = sum = sum + partial[tid + s];
        cg::sync(block);
    }

    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    if (block.thread_rank() < 32) {
        if (blockSize >= 64) sum += partial[tid + 32];
        for (int offset = warp.size() / 2; offset > 0; offset /= 2) sum += warp.shfl_down(sum, offset);
    }
    if (tid == 0) atomicAdd(total, sum);
}

#ifdef PLAYGROUND_REFERENCE
static void sum_reference(const int* input, int* total, unsigned int n)
{
    long long s = 0;
    for (unsigned int i = 0; i < n; ++i) s += input[i];
    total[0] = int(s);
}
#endif
