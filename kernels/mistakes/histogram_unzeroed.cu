/*@playground
title: Histogram that forgets to zero its bins (buggy on purpose)
category: Common mistakes
tags: histogram, atomics, initialisation, buggy on purpose
about: A 256-bin brightness histogram: every thread reads one pixel and does atomicAdd(&bins[v], 1).
  The bug is not in the kernel but before it: nobody sets the bins to zero. cudaMalloc does not clear
  memory, so in a real program the counts start from whatever the last user of that memory left
  there; here the bins start from random leftovers to show it. The counts come out too high and the
  check against a histogram counted from zero fails. The fix: cudaMemset(bins, 0, 256 * 4) before
  the launch, or a first step that zeroes them (see the atomic histogram lesson). Try: change the
  bins' initialiser to `zeros` and watch the check pass.
param width: int = src.width
param height: int = src.height
buffer src: uchar[width * height] in image("chelsea.png")
buffer bins: uint[256] out random(seed=13, min=0, max=3000)
block: 256
grid: ceil(width * height / block.x)
problem: width * height
view bins: plot
reference: count_brightness
expect: mismatch
learn: device memory is not cleared for you; zero the bins (cudaMemset or a first
  step) before counting into them
tolerance: 0
*/
extern "C" __global__ void histogram_unzeroed(const unsigned char* src, unsigned int* bins, int width, int height)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < width * height) {
        atomicAdd(&bins[src[i]], 1u);
    }
}

#ifdef PLAYGROUND_REFERENCE
// Counted from zero, as a histogram must be.
static void count_brightness(const unsigned char* src, unsigned int* bins, int width, int height)
{
    for (int b = 0; b < 256; ++b) bins[b] = 0;
    for (long i = 0; i < long(width) * height; ++i) bins[src[i]]++;
}
#endif
