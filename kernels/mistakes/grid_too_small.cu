/*@playground
title: A grid too small for the data (buggy on purpose)
category: Common mistakes
tags: grid, coverage, 2D, buggy on purpose
about: A 1024×1024 image needs 64×64 blocks of 16×16 threads, but this launch has a grid of 32 × 32
  (copied from a 512×512 example): only the top-left quarter is processed and the rest keeps its
  initial value. Nothing fails or warns at run time on a GPU: the kernel simply never runs for the
  missing pixels. The launch panel warns that the grid does not cover the problem, and the check
  shows the first pixel nobody wrote. The fix: compute the grid from the size,
  ceil(width / block.x) × ceil(height / block.y). Try: set the grid to that and run again.
param width: int = 1024 range 1..8192
param height: int = 1024 range 1..8192
buffer src: float[width * height] in random(seed=6, min=0, max=1)
buffer dst: float[width * height] out constant(-1)
block: 16 x 16
grid: 32 x 32
problem: width x height
view dst: image(width, height) colormap=viridis range=-1..2
reference: scale_image
expect: mismatch
learn: compute the grid from the size, ceil(width / block.x) x ceil(height / block.y);
  a fixed grid leaves elements nobody writes
tolerance: 1e-6
show: Output, Launch view
*/
extern "C" __global__ void grid_too_small(const float* src, float* dst, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        dst[y * width + x] = 2.0f * src[y * width + x];
    }
}

#ifdef PLAYGROUND_REFERENCE
static void scale_image(const float* src, float* dst, int width, int height)
{
    for (long i = 0; i < long(width) * height; ++i) dst[i] = 2.0f * src[i];
}
#endif
