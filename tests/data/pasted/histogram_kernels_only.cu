/*@playground
title: Histogram, the kernels alone (pasted)
category: Pasted samples
about: Only the kernels of a histogram sample, pasted with the includes above them: <stdlib.h> and
  <string.h> are host headers the device compile does not need.
param count: int = 70001
buffer data: uchar[count] in random(seed=17, min=0, max=255)
buffer hist: uint[64] out zeros
block: 256
grid: 64
problem: count
reference: hist64_reference
tolerance: 0
*/
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#define BINS 64

__global__ void histogram64(unsigned int* hist, const unsigned char* data, int count)
{
    __shared__ unsigned int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i] >> 2], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&hist[b], local[b]);
}

#ifdef PLAYGROUND_REFERENCE
static void hist64_reference(const unsigned char* data, unsigned int* hist, int count)
{
    for (int b = 0; b < 64; ++b) hist[b] = 0;
    for (int i = 0; i < count; ++i) hist[data[i] >> 2]++;
}
#endif
