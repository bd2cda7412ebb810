/*@playground
title: Map: square every element
category: Parallel patterns
tags: map, 1D, element-wise, bandwidth
about: The simplest parallel pattern: the same function applied to every element independently,
  y[i] = x[i]², one thread per element, no thread needs another's result. A map does almost no
  arithmetic per byte it moves, so its speed is set by memory bandwidth: the Timing panel shows the
  achieved GB/s as a fraction of the device's copy bandwidth, which a good map gets close to. Try:
  raise n to 16 million and compare the bandwidth with n = 1000 (too small to fill the GPU).
param n: int = 1000003 range 1..67108864
buffer x: float[n] in random(seed=5, min=-4, max=4)
buffer y: float[n] out zeros
block: 256
grid: ceil(n / block.x)
problem: n
traffic: 2 * n * 4
view y: plot
reference: square_all
tolerance: 0
*/
extern "C" __global__ void map_square(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v * v;
    }
}

#ifdef PLAYGROUND_REFERENCE
static void square_all(const float* x, float* y, int n)
{
    for (int i = 0; i < n; ++i) y[i] = x[i] * x[i];
}
#endif
