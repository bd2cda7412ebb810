/*@playground
title: Gaussian blur, separable, in two steps
category: Image filters
tags: 2D, image, convolution, separable, steps
about: A Gaussian blur weighs each neighbour by exp(-d² / 2 sigma²). A 2D Gaussian is a row Gaussian times
  a column Gaussian, so instead of (2r+1)² reads per pixel we blur along rows into a temporary image
  (step 1), then along columns (step 2): 2(2r+1) reads, with r = ceil(3 sigma). At sigma = 4 that is 50 reads
  instead of 625. The weights are normalised to sum to 1; borders repeat the edge pixels. Try: move
  the sigma slider from 2 to 8: each step's time grows with r, where a direct 2D blur's would grow
  with r squared; then write `tmp` out (`--out-dir`) to see the image after step 1, blurred only sideways.
param sigma: float = 2.5 range 0.5..10 step 0.5
param width: int = src.width
param height: int = src.height
buffer src: uchar4[width * height] in image("astronaut.png")
buffer tmp: float4[width * height] out zeros
buffer dst: uchar4[width * height] out zeros
block: 16 x 16
grid: ceil(width / block.x) x ceil(height / block.y)
step: blur_rows
step: blur_columns
problem: width x height
view dst: image(width, height)
reference: gaussian_separable
tolerance: 1
*/
__device__ int clamp_index(int v, int hi) { return min(max(v, 0), hi - 1); }

extern "C" __global__ void blur_rows(const uchar4* src, float4* tmp, float sigma, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    int r = (int)ceilf(3.0f * sigma);
    float4 sum = make_float4(0, 0, 0, 0);
    float weights = 0.0f;
    for (int d = -r; d <= r; ++d) {
        float w = expf(-(d * d) / (2.0f * sigma * sigma));
        uchar4 p = src[y * width + clamp_index(x + d, width)];
        sum.x += w * p.x; sum.y += w * p.y; sum.z += w * p.z; sum.w += w * p.w;
        weights += w;
    }
    tmp[y * width + x] = make_float4(sum.x / weights, sum.y / weights, sum.z / weights, sum.w / weights);
}

extern "C" __global__ void blur_columns(const float4* tmp, uchar4* dst, float sigma, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    int r = (int)ceilf(3.0f * sigma);
    float4 sum = make_float4(0, 0, 0, 0);
    float weights = 0.0f;
    for (int d = -r; d <= r; ++d) {
        float w = expf(-(d * d) / (2.0f * sigma * sigma));
        float4 p = tmp[clamp_index(y + d, height) * width + x];
        sum.x += w * p.x; sum.y += w * p.y; sum.z += w * p.z; sum.w += w * p.w;
        weights += w;
    }
    dst[y * width + x] = make_uchar4((unsigned char)(sum.x / weights + 0.5f), (unsigned char)(sum.y / weights + 0.5f),
                                     (unsigned char)(sum.z / weights + 0.5f), (unsigned char)(sum.w / weights + 0.5f));
}

#ifdef PLAYGROUND_REFERENCE
#include <cmath>
#include <vector>
// The same two passes in double precision, written as plain loops over the pixels.
static void gaussian_separable(const uchar4* src, float4* tmp, uchar4* dst, float sigma, int width, int height)
{
    const int r = int(std::ceil(3.0 * sigma));
    std::vector<double> w(2 * r + 1);
    double total = 0;
    for (int d = -r; d <= r; ++d) total += (w[d + r] = std::exp(-(d * d) / (2.0 * sigma * sigma)));
    auto clampi = [](int v, int hi) { return v < 0 ? 0 : (v >= hi ? hi - 1 : v); };
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            double s[4] = {0, 0, 0, 0};
            for (int d = -r; d <= r; ++d) {
                const uchar4 p = src[y * width + clampi(x + d, width)];
                s[0] += w[d + r] * p.x; s[1] += w[d + r] * p.y; s[2] += w[d + r] * p.z; s[3] += w[d + r] * p.w;
            }
            tmp[y * width + x] = {float(s[0] / total), float(s[1] / total), float(s[2] / total), float(s[3] / total)};
        }
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            double s[4] = {0, 0, 0, 0};
            for (int d = -r; d <= r; ++d) {
                const float4 p = tmp[clampi(y + d, height) * width + x];
                s[0] += w[d + r] * p.x; s[1] += w[d + r] * p.y; s[2] += w[d + r] * p.z; s[3] += w[d + r] * p.w;
            }
            dst[y * width + x] = {(unsigned char)(s[0] / total + 0.5), (unsigned char)(s[1] / total + 0.5),
                                  (unsigned char)(s[2] / total + 0.5), (unsigned char)(s[3] / total + 0.5)};
        }
}
#endif
