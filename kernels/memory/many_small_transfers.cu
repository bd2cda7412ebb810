/*@playground
title: Many small transfers vs one large
category: Memory
tags: transfers, latency, bandwidth, cudaMemcpy, batching
about: Every cudaMemcpy pays a fixed cost (a driver call, setting up the DMA, waiting for it to end),
  some microseconds, on top of the time the bytes take on the bus. One large copy pays it once; the
  same bytes in thousands of small copies pay it thousands of times, and small copies never reach the
  bus's bandwidth. The Timing panel's "copy in chunks of" slider (or `run --chunk-bytes N`) sends the
  input host->device in pieces of that size, and the host->device line shows the number of copies and
  the time per copy. Try: 4 KiB, 64 KiB, 1024 KiB and one copy (0), and plot time per copy against
  chunk size in your notes: where does it stop mattering?
param n: int = 4000037 range 1..100000000
buffer x: float[n] in random(seed=61, min=-1, max=1)
buffer y: float[n] out zeros
block: 256
grid: ceil(n / block.x)
problem: n
traffic: 2 * n * 4
view y: plot
reference: negate
tolerance: 0
show: Timing
*/
extern "C" __global__ void many_small_transfers(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = -x[i];
    }
}

#ifdef PLAYGROUND_REFERENCE
static void negate(const float* x, float* y, int n)
{
    for (int i = 0; i < n; ++i) y[i] = -x[i];
}
#endif
