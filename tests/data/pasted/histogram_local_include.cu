/*@playground
title: Histogram with a local header (pasted)
category: Pasted samples
about: A 256-bin histogram whose bin count comes from a header next to the file.
param width: int = 301
param height: int = 203
buffer src: uchar[width * height] in random(seed=9, min=0, max=255)
buffer bins: uint[256] out zeros
block: 192
grid: ceil(width * height / block.x)
problem: width * height
reference: histogram_reference
tolerance: 0
*/
#include "histogram_common.h"

__global__ void histogram256Kernel(unsigned int* bins, const unsigned char* src, int width, int height)
{
    __shared__ unsigned int s_hist[BIN_COUNT];
    for (int b = threadIdx.x; b < BIN_COUNT; b += blockDim.x) s_hist[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < width * height; i += blockDim.x * gridDim.x)
        atomicAdd(&s_hist[bin_of(src[i])], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BIN_COUNT; b += blockDim.x)
        if (s_hist[b]) atomicAdd(&bins[b], s_hist[b]);
}

#ifdef PLAYGROUND_REFERENCE
static void histogram_reference(const unsigned char* src, unsigned int* bins, int width, int height)
{
    for (int b = 0; b < 256; ++b) bins[b] = 0;
    for (int i = 0; i < width * height; ++i) ++bins[src[i]];
}
#endif
