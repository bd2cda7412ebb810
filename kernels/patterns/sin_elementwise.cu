/*@playground
title: Element-wise sin(2x + 1) on 4000 × 4000
category: Parallel patterns
tags: map, 2D, math functions, speed-up
about: Sixteen million independent evaluations of y = sin(2x + 1): the kind of work GPUs are built
  for. Each thread of a 2D grid handles one element. The kernel's median time is in the Timing panel;
  `run --json` on the CPU backend gives the time of the same loop on this machine's cores, so the
  ratio of the two is the speed-up. sinf is the accurate single-precision sine; __sinf is the fast
  hardware approximation. Try: replace sinf with __sinf and compare the time and the error the check
  reports (the tolerance allows for it).
param width: int = 4000 range 1..8192
param height: int = 4000 range 1..8192
buffer x: float[width * height] in random(seed=11, min=-3.14159, max=3.14159)
buffer y: float[width * height] out zeros
block: 32 x 8
grid: ceil(width / block.x) x ceil(height / block.y)
problem: width x height
traffic: 2 * width * height * 4
view y: image(width, height) colormap=coolwarm range=-1..1
reference: sin_2x_plus_1
tolerance: 1e-5
*/
extern "C" __global__ void sin_elementwise(const float* x, float* y, int width, int height)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < width && row < height) {
        int i = row * width + col;
        y[i] = sinf(2.0f * x[i] + 1.0f);
    }
}

#ifdef PLAYGROUND_REFERENCE
#include <cmath>
static void sin_2x_plus_1(const float* x, float* y, int width, int height)
{
    for (long i = 0; i < long(width) * height; ++i) y[i] = float(std::sin(2.0 * x[i] + 1.0));
}
#endif
