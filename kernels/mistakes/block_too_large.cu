/*@playground
title: A block larger than 1024 threads (buggy on purpose)
category: Common mistakes
tags: block size, limits, launch error, buggy on purpose
about: A 2D block of 32 × 64 looks natural for an image, but it has 2048 threads and no CUDA GPU
  allows more than 1024 per block. In a CUDA program the launch fails with "invalid configuration
  argument" and, unless you check cudaGetLastError(), nothing tells you: the kernel never ran and
  the output is whatever was in memory. The playground checks the launch against the device's limits
  before running it and refuses it, naming the limit. Try: make the block 32 × 32 (and the launch
  panel's grid follows) and run again.
param width: int = 1000 range 1..8192
param height: int = 700 range 1..8192
buffer src: float[width * height] in random(seed=6, min=0, max=1)
buffer dst: float[width * height] out zeros
block: 32 x 64
grid: ceil(width / block.x) x ceil(height / block.y)
problem: width x height
view dst: image(width, height) colormap=viridis
reference: scale_image
expect: refused
learn: no GPU allows more than 1024 threads per block; the launch is refused and the
  kernel never runs, so always check the launch's error
tolerance: 1e-6
show: Launch
*/
extern "C" __global__ void block_too_large(const float* src, float* dst, int width, int height)
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
