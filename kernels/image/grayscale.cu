/*@playground
title: RGB to grayscale
category: Image filters
tags: 2D, image, per-pixel, memory bound
about: A per-pixel map: each thread reads one RGBA pixel and writes its luma
  Y = 0.299 R + 0.587 G + 0.114 B (ITU-R BT.601) to all three colour channels. There is no reuse
  between pixels, so the kernel's speed is set by memory bandwidth. Try: compare the bandwidth in the
  Timing panel with the device's copy bandwidth, then with the four-pixels-per-thread version shown
  beside it (its column in the Output panel, its time in the Timing panel). On the CPU backend the
  bandwidth is the CPU's memory, read by emulated threads: it does not predict a GPU's.
param width: int = src.width
param height: int = src.height
buffer src: uchar4[width * height] in image("coffee.png")
buffer dst: uchar4[width * height] out zeros
block: 16 x 16
grid: ceil(width / block.x) x ceil(height / block.y)
problem: width x height
view dst: image(width, height)
reference: grayscale_reference
compare: image/grayscale_fast
tolerance: 1
show: Compare, Timing
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

#ifdef PLAYGROUND_REFERENCE
// Exact integer weights (per mille), rounded half up: Y = round(0.299 R + 0.587 G + 0.114 B). The kernel's
// float arithmetic may differ by one near halves: the tolerance is 1.
static void grayscale_reference(const uchar4* src, uchar4* dst, int width, int height)
{
    for (long long i = 0; i < (long long)width * height; ++i) {
        const unsigned weighted = 299u * src[i].x + 587u * src[i].y + 114u * src[i].z;
        const unsigned y = (weighted + 500) / 1000;
        const unsigned char g = (unsigned char)(y > 255 ? 255 : y);
        dst[i] = make_uchar4(g, g, g, src[i].w);
    }
}
#endif
