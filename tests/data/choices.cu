/*@playground
title: Choices
category: Tests
about: A kernel with every kind of choice the window and `run` take: a ranged int, an enum, a float,
  an image buffer and a derived size.
param width: int = src.width
param height: int = src.height
param gain: float = 1.0 range 0..4
param mode: int = copy enum copy=0 invert=1
param rows: int = 8 range 1..64
buffer src: uchar4[width * height] in image("coffee.png")
buffer dst: uchar4[width * height] out zeros
block: 16 x 16
grid: ceil(width / block.x) x ceil(height / block.y)
problem: width x height
view dst: image(width, height)
*/
extern "C" __global__ void choices(const uchar4* src, uchar4* dst, int width, int height, float gain, int mode, int rows)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    uchar4 p = src[y * width + x];
    float v = gain * (p.x + p.y + p.z) / 3.0f + rows * 0.0f;
    unsigned char c = (unsigned char)fminf(v, 255.0f);
    if (mode == 1) c = 255 - c;
    dst[y * width + x] = make_uchar4(c, c, c, 255);
}
