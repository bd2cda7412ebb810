/*@playground
title: Early return before __syncthreads() (buggy on purpose)
category: Common mistakes
tags: __syncthreads, early return, barrier, reduction, shared memory, buggy on purpose
about: Each block sums its 256 elements in shared memory: the threads load one element each, then
  add pairs in a tree with a __syncthreads() between levels, and thread 0 writes the block's sum.
  With n = 1000 the last block has 24 threads past the end of the data, and this kernel sends them
  away with `if (i >= n) return;` before the first barrier. Every thread of a block must reach every
  __syncthreads(); one that has returned never does, and CUDA leaves the result undefined. On a GPU,
  PTX releases a barrier that only exited threads still hold, so the other 232 pass and the tree adds
  whatever the 24 unwritten slots of shared memory held: often zeros (then the sums even verify, by
  luck; an H200 does), another block's values when one ran there before. compute-sanitizer's synccheck
  does not flag it either. The CPU backend stops the run and says which block, which barrier, and how
  many threads waited there while how many had returned. Try: delete the `return`, load
  `i < n ? in[i] : 0` instead, and run again.
param n: int = 1000 range 1..1000000
buffer in: int[n] in ramp(start=1, step=1)
buffer sums: int[ceil(n / 256)] out constant(-1)
block: 256
grid: ceil(n / block.x)
problem: n
view sums: table
reference: sum_each_block
expect: hang on cpu; undefined on cuda
learn: every thread of a block must reach each __syncthreads(); instead of returning early, guard
  the work (`if (i < n)`, or load 0 past the end) and let every thread reach the barrier
tolerance: 0
*/
extern "C" __global__ void early_return_before_syncthreads(const int* in, int* sums, int n)
{
    __shared__ int partial[256];
    const int t = threadIdx.x;
    const int i = blockIdx.x * blockDim.x + t;
    if (i >= n) return;  // the bug: these threads never reach the barriers below
    partial[t] = in[i];
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (t < half) partial[t] += partial[t + half];
        __syncthreads();
    }
    if (t == 0) sums[blockIdx.x] = partial[0];
}

#ifdef PLAYGROUND_REFERENCE
// The sum of each block's 256 elements (the last block's fewer).
static void sum_each_block(const int* in, int* sums, int n)
{
    for (int b = 0; b * 256 < n; ++b) {
        int sum = 0;
        for (int i = b * 256; i < n && i < (b + 1) * 256; ++i) sum += in[i];
        sums[b] = sum;
    }
}
#endif
