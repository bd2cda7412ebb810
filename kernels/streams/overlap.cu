/*@playground
title: Streams: copies and kernels overlapping
category: Streams
tags: streams, overlap, cudaMemcpyAsync, pinned memory, events
about: A stream is a queue of GPU work that runs in order; work in different streams may run at the
  same time. Here the array is cut into chunks and chunk k goes to stream k % streams: on its stream each
  chunk is copied in (cudaMemcpyAsync from pinned memory), computed, and copied out, so while one chunk
  is computed the next one is already being copied in and the previous one copied out. The Streams panel
  draws one lane per stream with the host->device copies, kernels and device->host copies as bars. They
  are timed with CUDA events: cudaEventRecord before and after each operation on its stream, and
  cudaEventElapsedTime from the first event. Under the lanes: the total on all the streams against the
  same work queued on one stream. Try: slide `streams` to 1 and compare the two totals; then make the
  kernel heavier (raise `rounds`) and watch the copies hide behind the kernels. On the CPU backend
  nothing overlaps (there are no copy engines): its lanes show the order of the work, not concurrency.
param n: int = 8000009 range 1..100000000
param streams: int = 4 range 1..16
param rounds: int = 8 range 1..400
buffer x: float[n] in random(seed=31, min=0, max=1)
buffer y: float[n] out zeros
block: 256
grid: ceil(n / block.x)
problem: n
streams: streams over n
traffic: 2 * n * 4
view y: plot
reference: smooth_step
tolerance: 1e-5
show: Streams
*/
// Each chunk is launched with its own n (the chunk's length) and pointers to the chunk's first element, so the
// kernel is the ordinary one: it does not know it runs on a part of the array.
extern "C" __global__ void overlap(const float* x, float* y, int n, int rounds)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        for (int r = 0; r < rounds; ++r) v = v * v * (3.0f - 2.0f * v);
        y[i] = v;
    }
}

#ifdef PLAYGROUND_REFERENCE
static void smooth_step(const float* x, float* y, int n, int rounds)
{
    for (int i = 0; i < n; ++i) {
        float v = x[i];
        for (int r = 0; r < rounds; ++r) v = v * v * (3.0f - 2.0f * v);
        y[i] = v;
    }
}
#endif
