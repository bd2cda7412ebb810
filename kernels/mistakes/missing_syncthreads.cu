/*@playground
title: A race from a missing __syncthreads() (buggy on purpose)
category: Common mistakes
tags: shared memory, __syncthreads, race condition, buggy on purpose
about: Each block reverses its part of the array through shared memory: thread t writes element t of
  the tile, then reads element (blockDim.x - 1 - t), which another thread wrote. Without a
  __syncthreads() between the write and the read, a thread may read its partner's element before
  the partner has written it, and gets whatever the tile held before. On a GPU the result depends on
  which warps happen to run first (it can even look right on a small test); the CPU backend runs a
  block's threads one after another until a barrier, so here every thread of the first half reads
  too early and the check fails. Run it with CUDA_PLAYGROUND_CPU_ORDER=shuffled to see a different
  wrong answer each seed. Try: put __syncthreads() back where the comment says.
param n: int = 1000 range 1..1000000
buffer in: int[n] in ramp(start=0, step=1)
buffer out: int[n] out constant(-1)
block: 128
grid: ceil(n / block.x)
shared: block.x * 4
problem: n
view out: plot
reference: reverse_each_block
expect: mismatch
learn: threads that read what other threads wrote to shared memory must wait at a
  __syncthreads() between the write and the read
tolerance: 0
*/
extern "C" __global__ void missing_syncthreads(const int* in, int* out, int n)
{
    extern __shared__ int tile[];
    const int t = threadIdx.x;
    const int base = blockIdx.x * blockDim.x;
    const int count = min((int)blockDim.x, n - base);  // the last block may be partly empty
    if (t < count) tile[t] = in[base + t];
    // Missing: __syncthreads();  every write to the tile must be done before anyone reads it
    if (t < count) out[base + t] = tile[count - 1 - t];
}

#ifdef PLAYGROUND_REFERENCE
// Each block's elements reversed, the last (partial) block's too; the block size is 128.
static void reverse_each_block(const int* in, int* out, int n)
{
    const int block = 128;
    for (int base = 0; base < n; base += block) {
        const int count = n - base < block ? n - base : block;
        for (int t = 0; t < count; ++t) out[base + t] = in[base + count - 1 - t];
    }
}
#endif
