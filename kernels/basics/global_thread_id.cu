/*@playground
title: Global thread ID in 1D
category: Basics
tags: 1D, indexing, blockIdx, threadIdx
about: A thread knows its place through three built-in variables: threadIdx.x (its number within its
  block), blockIdx.x (its block's number) and blockDim.x (threads per block). Its global index is
  i = blockIdx.x * blockDim.x + threadIdx.x, so the blocks lie end to end and every element gets
  exactly one thread. Each thread writes i into `ids` and its block's number into `block_of`. The
  problem (1000 elements) is not a multiple of the block (128): the last block has threads with
  nothing to do, which the `if (i < n)` keeps out. Try: set `threads` (the block size) to 100 and
  watch the steps of block_of get shorter.
param n: int = 1000 range 1..1000000
param threads: int = 128 range 1..1024
buffer ids: int[n] out constant(-1)
buffer block_of: int[n] out constant(-1)
block: threads
grid: ceil(n / block.x)
problem: n
view ids: plot
view block_of: plot
reference: global_ids
tolerance: 0
*/
extern "C" __global__ void global_thread_id(int* ids, int* block_of, int n, int threads)
{
    // `threads` is the block size the header launches with (the check needs it); the kernel reads blockDim.x.
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        ids[i] = i;
        block_of[i] = blockIdx.x;
    }
}

#ifdef PLAYGROUND_REFERENCE
static void global_ids(int* ids, int* block_of, int n, int threads)
{
    for (int i = 0; i < n; ++i) {
        ids[i] = i;
        block_of[i] = i / threads;
    }
}
#endif
