/*@playground
title: Streams: how much could copies and kernels overlap?
category: Streams
tags: streams, overlap, cudaMemcpyAsync, pinned memory, events
about: A stream is a queue of GPU work that runs in order; work in different streams may run at the
  same time. The classic use: split the data into chunks and give each chunk its own stream, so that
  chunk 2 is copied in while chunk 1 is computed and chunk 0 is copied out. The copy engines and the
  SMs then work together, and the total approaches the longest of the three steps instead of their
  sum. The playground runs each lesson on one stream today, so this lesson cannot show the overlap on
  a timeline yet (no per-stream timeline); what it does show is the breakdown that decides whether
  streams would pay off. Try: read the Timing panel's steps: host->device + kernel + device->host is
  the one-stream time; the largest of the three is about what two or more streams could reach.
param n: int = 8000009 range 1..100000000
buffer x: float[n] in random(seed=31, min=0, max=1)
buffer y: float[n] out zeros
block: 256
grid: ceil(n / block.x)
problem: n
traffic: 2 * n * 4
view y: plot
reference: smooth_step
tolerance: 1e-5
*/
// Enough arithmetic per element that the kernel is not negligible next to the copies.
extern "C" __global__ void overlap_estimate(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        for (int r = 0; r < 8; ++r) v = v * v * (3.0f - 2.0f * v);
        y[i] = v;
    }
}

#ifdef PLAYGROUND_REFERENCE
static void smooth_step(const float* x, float* y, int n)
{
    for (int i = 0; i < n; ++i) {
        float v = x[i];
        for (int r = 0; r < 8; ++r) v = v * v * (3.0f - 2.0f * v);
        y[i] = v;
    }
}
#endif
