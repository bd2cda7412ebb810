/*@playground
title: A texture kernel beside a plain one (pasted)
category: Pasted samples
about: The sample's file has a texture-object version of a horizontal flip and a plain-pointer one. The
  plain one runs here; the texture one is refused only when chosen, with the line and the plain way.
param width: int = 123
param height: int = 77
buffer src: float[width * height] in random(seed=3)
buffer dst: float[width * height] out zeros
kernel: flipPlain
block: 16 x 16
grid: ceil(width / block.x) x ceil(height / block.y)
problem: width x height
reference: flip_reference
tolerance: 0
*/
#include <cuda_runtime.h>

__device__ float fetchTex(cudaTextureObject_t tex, int x, int y)
{
    return tex2D<float>(tex, x + 0.5f, y + 0.5f);
}

__global__ void flipTexture(cudaTextureObject_t tex, float* dst, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) dst[y * width + x] = fetchTex(tex, width - 1 - x, y);
}

__global__ void flipPlain(const float* src, float* dst, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) dst[y * width + x] = src[y * width + (width - 1 - x)];
}

#ifdef PLAYGROUND_REFERENCE
static void flip_reference(const float* src, float* dst, int width, int height)
{
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) dst[y * width + x] = src[y * width + (width - 1 - x)];
}
#endif
