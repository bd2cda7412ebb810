/*@playground
title: RGB to grayscale
category: Image filters
tags: 2D, image, per-pixel, memory bound
about: A per-pixel map: each thread reads one RGBA pixel and writes its luma
  Y = 0.299 R + 0.587 G + 0.114 B (ITU-R BT.601) to all three colour channels. There is no reuse
  between pixels, so the kernel's speed is set by memory bandwidth: compare the achieved bandwidth in
  the Timing panel with the device's copy bandwidth.
param width: int = src.width
param height: int = src.height
buffer src: uchar4[width * height] in image("coffee.png")
buffer dst: uchar4[width * height] out zeros
block: 16 x 16
grid: ceil(width / block.x) x ceil(height / block.y)
problem: width x height
view dst: image(width, height)
reference: grayscale_bt601
tolerance: 1
*/
extern "C" __global__ void grayscale(const uchar4* src, uchar4* dst, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;

    uchar4 p = src[y * width + x];
    float luma = 0.299f * p.x + 0.587f * p.y + 0.114f * p.z;
    unsigned char g = (unsigned char)fminf(luma + 0.5f, 255.0f);
    dst[y * width + x] = make_uchar4(g, g, g, p.w);
}
