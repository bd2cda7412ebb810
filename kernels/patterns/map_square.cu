/*@playground
title: Map: square every element
category: Parallel patterns
tags: map, 1D, element-wise, bandwidth
about: The simplest parallel pattern: the same function applied to every element independently,
  y[i] = x[i]², no thread needs another's result. A map does almost no arithmetic per byte it
  moves, so its speed is set by memory bandwidth, and the Timing panel shows the achieved GB/s as a
  fraction of the device's copy bandwidth. Each thread squares four elements one block apart (a
  warp still reads 32 neighbours at a time: coalesced) and loads all four before it stores any, so
  four loads per thread are in flight at once. That is what reaches the bandwidth: on an H200 this
  kernel reaches about 100% of the copy bandwidth at n = 64 M, where one element per thread reaches
  about 62% (each thread then has one 4-byte load waiting, too few bytes in flight to cover the
  memory's latency). Try: raise n to 16 million and compare with n = 1000 (too small to fill the
  GPU: a few microseconds of launch); set `PER` below and the grid's 4 to 1 for one element per
  thread.
param n: int = 1000003 range 1..67108864
buffer x: float[n] in random(seed=5, min=-4, max=4)
buffer y: float[n] out zeros
block: 256
grid: ceil(n / (4 * block.x))
problem: ceil(n / 4)
traffic: 2 * n * 4
view y: plot
reference: square_all
tolerance: 0
*/
#define PER 4  // elements per thread: the header's grid divides by the same 4

extern "C" __global__ void map_square(const float* __restrict__ x, float* __restrict__ y, int n)
{
    // This thread's elements: first, first + blockDim.x, ... (a block covers PER * blockDim.x elements).
    const int first = blockIdx.x * blockDim.x * PER + threadIdx.x;
    float v[PER];
    for (int k = 0; k < PER; ++k) {  // all loads first: PER of them wait on memory together
        const int i = first + k * blockDim.x;
        v[k] = i < n ? x[i] : 0.0f;
    }
    for (int k = 0; k < PER; ++k) {
        const int i = first + k * blockDim.x;
        if (i < n) y[i] = v[k] * v[k];
    }
}

#ifdef PLAYGROUND_REFERENCE
static void square_all(const float* x, float* y, int n)
{
    for (int i = 0; i < n; ++i) y[i] = x[i] * x[i];
}
#endif
