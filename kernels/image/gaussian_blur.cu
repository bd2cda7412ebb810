/*@playground
title: Gaussian blur with a sigma slider
category: Image filters
tags: 2D, image, convolution, stencil, Gaussian
about: A Gaussian blur weighs each neighbour at distance (dx, dy) by exp(-(dx² + dy²) / 2 sigma²), over a
  window of radius r = ceil(3 sigma) (beyond 3 sigma the weights are negligible); the weights are normalised to
  sum to 1 and borders repeat the edge pixels. This direct version reads (2r + 1)² pixels per output:
  625 at sigma = 4. Because the 2D Gaussian is a row Gaussian times a column Gaussian, the same picture
  comes out of two 1D passes with 2(2r + 1) reads (the separable version, two steps, waits for the
  lesson format's steps). Try: move sigma from 1 to 6 and watch the median time grow with sigma squared.
param sigma: float = 2.0 range 0.5..8 step 0.5
param width: int = src.width
param height: int = src.height
buffer src: uchar4[width * height] in image("chelsea.png")
buffer dst: uchar4[width * height] out zeros
block: 16 x 16
grid: ceil(width / block.x) x ceil(height / block.y)
problem: width x height
view dst: image(width, height)
reference: gaussian_reference
tolerance: 1
*/
extern "C" __global__ void gaussian_blur(const uchar4* src, uchar4* dst, float sigma, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    int r = (int)ceilf(3.0f * sigma);
    float inv = 1.0f / (2.0f * sigma * sigma);
    float sx = 0, sy = 0, sz = 0, sw = 0, total = 0;
    for (int dy = -r; dy <= r; ++dy) {
        int yy = min(max(y + dy, 0), height - 1);
        for (int dx = -r; dx <= r; ++dx) {
            int xx = min(max(x + dx, 0), width - 1);
            float w = expf(-(float)(dx * dx + dy * dy) * inv);
            uchar4 p = src[yy * width + xx];
            sx += w * p.x; sy += w * p.y; sz += w * p.z; sw += w * p.w;
            total += w;
        }
    }
    dst[y * width + x] = make_uchar4((unsigned char)(sx / total + 0.5f), (unsigned char)(sy / total + 0.5f),
                                     (unsigned char)(sz / total + 0.5f), (unsigned char)(sw / total + 0.5f));
}

#ifdef PLAYGROUND_REFERENCE
#include <algorithm>
#include <cmath>
// Double precision, plain loops; the kernel's float sums may round a channel the other way (tolerance 1).
static void gaussian_reference(const uchar4* src, uchar4* dst, float sigma, int width, int height)
{
    const int r = int(std::ceil(3.0 * double(sigma)));
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            double s[4] = {0, 0, 0, 0}, total = 0;
            for (int dy = -r; dy <= r; ++dy)
                for (int dx = -r; dx <= r; ++dx) {
                    const double w = std::exp(-double(dx * dx + dy * dy) / (2.0 * double(sigma) * double(sigma)));
                    const uchar4 p = src[std::clamp(y + dy, 0, height - 1) * width + std::clamp(x + dx, 0, width - 1)];
                    s[0] += w * p.x; s[1] += w * p.y; s[2] += w * p.z; s[3] += w * p.w;
                    total += w;
                }
            dst[y * width + x] = make_uchar4((unsigned char)(s[0] / total + 0.5), (unsigned char)(s[1] / total + 0.5),
                                             (unsigned char)(s[2] / total + 0.5), (unsigned char)(s[3] / total + 0.5));
        }
}
#endif
