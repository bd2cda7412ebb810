/*@playground
title: Sobel edges
category: Image filters
tags: 2D, image, stencil, gradient, edges
about: Edges are where brightness changes fast. The Sobel filter estimates the horizontal and vertical
  brightness gradients gx and gy at each pixel from its 3×3 neighbourhood (weights -1 0 1 / -2 0 2 /
  -1 0 1 and the same turned by 90°), and the output is the gradient's length sqrt(gx² + gy²),
  clamped to 255. Borders repeat the edge pixels, as in the box blur. The input is the photo in gray
  (the `uchar` buffer gets each pixel's BT.601 luma). Try: output only |gx| and see which edges
  disappear.
param width: int = src.width
param height: int = src.height
buffer src: uchar[width * height] in image("camera.png")
buffer edges: uchar[width * height] out zeros
block: 16 x 16
grid: ceil(width / block.x) x ceil(height / block.y)
problem: width x height
view edges: image(width, height) colormap=gray
reference: sobel_magnitude
tolerance: 1
*/
extern "C" __global__ void sobel(const unsigned char* src, unsigned char* edges, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;

    int p[3][3];
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            int sx = min(max(x + dx, 0), width - 1);
            int sy = min(max(y + dy, 0), height - 1);
            p[dy + 1][dx + 1] = src[sy * width + sx];
        }
    }
    int gx = (p[0][2] + 2 * p[1][2] + p[2][2]) - (p[0][0] + 2 * p[1][0] + p[2][0]);
    int gy = (p[2][0] + 2 * p[2][1] + p[2][2]) - (p[0][0] + 2 * p[0][1] + p[0][2]);
    float magnitude = sqrtf(float(gx * gx + gy * gy));
    edges[y * width + x] = (unsigned char)fminf(magnitude + 0.5f, 255.0f);
}

#ifdef PLAYGROUND_REFERENCE
#include <algorithm>
#include <cmath>
static void sobel_magnitude(const unsigned char* src, unsigned char* edges, int width, int height)
{
    auto at = [&](int x, int y) {
        return int(src[std::clamp(y, 0, height - 1) * width + std::clamp(x, 0, width - 1)]);
    };
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            const int gx = at(x + 1, y - 1) + 2 * at(x + 1, y) + at(x + 1, y + 1) - at(x - 1, y - 1) -
                           2 * at(x - 1, y) - at(x - 1, y + 1);
            const int gy = at(x - 1, y + 1) + 2 * at(x, y + 1) + at(x + 1, y + 1) - at(x - 1, y - 1) -
                           2 * at(x, y - 1) - at(x + 1, y - 1);
            const double m = std::sqrt(double(gx) * gx + double(gy) * gy);
            edges[y * width + x] = (unsigned char)std::min(m + 0.5, 255.0);
        }
    }
}
#endif
