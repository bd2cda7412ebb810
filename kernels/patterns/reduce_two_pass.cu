/*@playground
title: Reduce: per-block partial sums, then a final pass
category: Parallel patterns
tags: reduction, shared memory, __syncthreads, tree, __threadfence
about: The classic sum without one atomic per element. First pass: each block loads its part of the
  input into shared memory and adds pairs in a tree (the lower half of the active threads adds in the
  upper half, __syncthreads() between levels) until thread 0 holds the block's sum, which it writes
  to partials[blockIdx.x]. Final pass: the partial sums must be added too, but blocks cannot wait for
  each other inside a kernel. Usually that is a second launch; here, to stay one kernel, each block
  takes a ticket when its partial is written (__threadfence() makes the partial visible first), and
  the block that draws the last ticket adds all the partials. Try: set `threads` to 64 and compare
  `partials` (four times as many) and the time.
param n: int = 200003 range 1..67108864
param threads: int = 256 enum 64=64 128=128 256=256 512=512 1024=1024
param blocks: int = ceil(n / threads) range 1..2147483647
buffer input: int[n] in random(seed=7, min=0, max=100)
buffer partials: int[blocks] out zeros
buffer total: int[1] out zeros
buffer tickets: uint[1] out zeros
block: threads
grid: blocks
shared: threads * 4
problem: n
view partials: plot
view total: table
reference: partial_and_total_sums
tolerance: 0
*/
// Adds the blockDim.x values in shared `tree` (a power of two); tree[0] ends with the sum.
__device__ void tree_sum(int* tree)
{
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) tree[threadIdx.x] += tree[threadIdx.x + half];
        __syncthreads();
    }
}

extern "C" __global__ void reduce_two_pass(const int* input, int* partials, int* total, unsigned int* tickets, int n,
                                           int threads, int blocks)
{
    extern __shared__ int tree[];
    __shared__ bool last_block;
    const int t = threadIdx.x;
    const int i = blockIdx.x * blockDim.x + t;
    tree[t] = i < n ? input[i] : 0;
    __syncthreads();
    tree_sum(tree);

    // First pass done for this block: publish the partial, then take a ticket.
    if (t == 0) {
        partials[blockIdx.x] = tree[0];
        __threadfence();
        last_block = atomicAdd(tickets, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last_block) return;

    // Final pass, by the last block to finish: every partial is visible now.
    int sum = 0;
    for (int b = t; b < gridDim.x; b += blockDim.x) sum += ((volatile int*)partials)[b];
    tree[t] = sum;
    __syncthreads();
    tree_sum(tree);
    if (t == 0) total[0] = tree[0];
}

#ifdef PLAYGROUND_REFERENCE
static void partial_and_total_sums(const int* input, int* partials, int* total, unsigned int* tickets, int n,
                                   int threads, int blocks)
{
    int sum = 0;
    for (int b = 0; b < blocks; ++b) {
        int part = 0;
        for (long i = long(b) * threads; i < long(b + 1) * threads && i < n; ++i) part += input[i];
        partials[b] = part;
        sum += part;
    }
    total[0] = sum;
    tickets[0] = unsigned(blocks);  // every block took one
}
#endif
