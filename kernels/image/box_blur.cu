/*@playground
title: Box blur 3×3
category: Image filters
tags: 2D, image, stencil, neighbourhood
about: A stencil: each output pixel is the average of the 3×3 neighbourhood around it in the input,
  with coordinates clamped at the borders (edge pixels repeat). Neighbouring threads read overlapping
  pixels, so the caches do much of the work; the next lessons stage the tile in shared memory or keep rows in
  registers; tick "Compare side by side" above the picture to run them beside this one (same picture,
  their times and speed-ups above the columns; on the CPU backend those times do not predict a GPU's).
  Try: the Sweep panel, to see which block shape is fastest for this photo.
param width: int = src.width
param height: int = src.height
buffer src: uchar4[width * height] in image("coffee.png")
buffer dst: uchar4[width * height] out zeros
block: 16 x 16
grid: ceil(width / block.x) x ceil(height / block.y)
problem: width x height
view dst: image(width, height)
reference: box_blur_reference
compare: image/box_blur_shared image/box_blur_wide
tolerance: 1
show: Output
*/
extern "C" __global__ void box_blur(const uchar4* src, uchar4* dst, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;

    int sum[4] = {0, 0, 0, 0};
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            int sx = min(max(x + dx, 0), width - 1);
            int sy = min(max(y + dy, 0), height - 1);
            uchar4 p = src[sy * width + sx];
            sum[0] += p.x; sum[1] += p.y; sum[2] += p.z; sum[3] += p.w;
        }
    }
    // Round to nearest: (sum + 4) / 9.
    dst[y * width + x] = make_uchar4((sum[0] + 4) / 9, (sum[1] + 4) / 9, (sum[2] + 4) / 9, (sum[3] + 4) / 9);
}

#ifdef PLAYGROUND_REFERENCE
#include <cmath>
// The average of the nine samples (edge pixels repeated), rounded to nearest: a sum of nine integers is
// never exactly halfway, so how ties round does not matter.
static void box_blur_reference(const uchar4* src, uchar4* dst, int width, int height)
{
    auto clamp_to = [](int v, int n) { return v < 0 ? 0 : (v >= n ? n - 1 : v); };
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            const unsigned char* pixel[9];
            int count = 0;
            for (int ny = y - 1; ny <= y + 1; ++ny)
                for (int nx = x - 1; nx <= x + 1; ++nx)
                    pixel[count++] = &src[clamp_to(ny, height) * width + clamp_to(nx, width)].x;
            unsigned char out[4];
            for (int channel = 0; channel < 4; ++channel) {
                int sum = 0;
                for (int s = 0; s < 9; ++s) sum += pixel[s][channel];
                out[channel] = (unsigned char)std::lround(sum / 9.0);
            }
            dst[y * width + x] = make_uchar4(out[0], out[1], out[2], out[3]);
        }
    }
}
#endif
