/*@playground
title: Reduce in two passes: per-block partial sums, then one block
category: Parallel patterns
tags: reduction, shared memory, __syncthreads, tree, steps
about: A sum without atomics, in two launches. Pass 1: each block loads its part of the input into
  shared memory and adds pairs in a tree (the lower half of the active threads adds in the upper
  half, __syncthreads() between levels) until thread 0 holds the block's sum, which it writes to
  partials[blockIdx.x]. Pass 2: a single block of 1024 threads adds the partial sums the same way,
  each thread first adding several partials in a loop. The launch boundary between the passes is the
  grid-wide synchronisation that a single kernel cannot do (without it, the last block to finish
  would have to take a ticket and add the partials itself). `run` times each step: the final pass
  over a few thousand partials is tiny next to pass 1. Try: set `threads` to 64 and watch `partials`
  grow fourfold and the final pass take longer.
param n: int = 1000003 range 1..67108864
param threads: int = 256 enum 64=64 128=128 256=256 512=512 1024=1024
param blocks: int = ceil(n / threads)
buffer input: int[n] in random(seed=7, min=0, max=100)
buffer partials: int[blocks] out zeros
buffer total: int[1] out zeros
step: block_partials block=threads grid=blocks shared=block.x * 4
step: final_pass block=1024 grid=1 shared=block.x * 4
view total: table
reference: sum_all
tolerance: 0
*/
extern "C" __global__ void block_partials(const int* input, int* partials, int n)
{
    extern __shared__ int tree[];
    const int t = threadIdx.x;
    const int i = blockIdx.x * blockDim.x + t;
    tree[t] = i < n ? input[i] : 0;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {  // blockDim.x is a power of two
        if (t < half) tree[t] += tree[t + half];
        __syncthreads();
    }
    if (t == 0) partials[blockIdx.x] = tree[0];
}

extern "C" __global__ void final_pass(const int* partials, int* total, int blocks)
{
    extern __shared__ int tree[];
    const int t = threadIdx.x;
    int sum = 0;
    for (int i = t; i < blocks; i += blockDim.x) sum += partials[i];
    tree[t] = sum;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (t < half) tree[t] += tree[t + half];
        __syncthreads();
    }
    if (t == 0) total[0] = tree[0];
}

#ifdef PLAYGROUND_REFERENCE
static void sum_all(const int* input, int* partials, int* total, int n, int threads, int blocks)
{
    int sum = 0;
    for (int b = 0; b < blocks; ++b) {
        int part = 0;
        for (int i = b * threads; i < (b + 1) * threads && i < n; ++i) part += input[i];
        partials[b] = part;
        sum += part;
    }
    total[0] = sum;
}
#endif
