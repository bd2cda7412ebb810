/*@playground
title: Assignment 3: grayscale
about: Write the kernel: each thread turns one RGBA pixel of `src` into its luma
  Y = 0.299 R + 0.587 G + 0.114 B, rounded, in the three colour channels of `dst`; alpha stays. The image
  need not be a multiple of the block in either direction.
param width: int = src.width
param height: int = src.height
buffer src: uchar4[width * height] in image("coffee.png")
buffer dst: uchar4[width * height] out zeros
block: 16 x 16
grid: ceil(width / block.x) x ceil(height / block.y)
view dst: image(width, height)
reference: grayscale_reference
tolerance: 1
# The hidden part: two photos, one of odd sizes (451 x 300).
grade case coffee: src = "coffee.png"
grade case chelsea: src = "chelsea.png"
grade time: 3 s
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
static void grayscale_reference(const uchar4* src, uchar4* dst, int width, int height)
{
    for (long long i = 0; i < (long long)width * height; ++i) {
        const unsigned y = (299u * src[i].x + 587u * src[i].y + 114u * src[i].z + 500) / 1000;
        const unsigned char g = (unsigned char)(y > 255 ? 255 : y);
        dst[i] = make_uchar4(g, g, g, src[i].w);
    }
}
#endif
