/*@playground
title: Histogram with shared-memory atomics
category: Atomics
tags: atomics, shared memory, privatisation, contention
about: Counts how many pixels of a grayscale photo have each brightness 0..255. Thousands of threads
  increment the same 256 counters, so the increments must be atomic. Each block first counts into its
  own copy of the bins in shared memory (fast atomics, less contention), then adds its copy to the
  global bins: 256 global atomics per block instead of one per pixel. Try: open "Histogram that
  forgets to zero its bins" under Common mistakes, and see how its bins differ from these.
param width: int = src.width
param height: int = src.height
buffer src: uchar[width * height] in image("chelsea.png")
buffer bins: uint[256] out zeros
block: 256
grid: ceil(width * height / block.x)
problem: width * height
view bins: plot
reference: histogram_reference
tolerance: 0
*/
extern "C" __global__ void atomic_histogram(const unsigned char* src, unsigned int* bins, int width, int height)
{
    __shared__ unsigned int local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) {
        local[b] = 0;
    }
    __syncthreads();

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < width * height) {
        atomicAdd(&local[src[i]], 1u);
    }
    __syncthreads();

    for (int b = threadIdx.x; b < 256; b += blockDim.x) {
        if (local[b] != 0) {
            atomicAdd(&bins[b], local[b]);
        }
    }
}

#ifdef PLAYGROUND_REFERENCE
// One pass over the pixels, one counter per brightness.
static void histogram_reference(const unsigned char* src, unsigned int* bins, int width, int height)
{
    for (int b = 0; b < 256; ++b) bins[b] = 0;
    for (long long i = 0; i < (long long)width * height; ++i) ++bins[src[i]];
}
#endif
