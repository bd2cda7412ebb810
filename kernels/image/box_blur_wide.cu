/*@playground
title: Box blur 3×3, 4 × 8 pixels per thread
category: Image filters
tags: 2D, image, stencil, registers, vector loads, performance
about: The 3×3 box blur tuned for bandwidth without shared memory. Each thread produces a strip of
  4 pixels across and 8 rows down. For each input row it needs, it makes one 16-byte load (the four
  pixels above its columns) plus the single pixels left and right, and adds each pixel to its
  neighbours across (a row sum); the output row is then the sum of three row sums, which the thread
  keeps in registers as it slides down, so each input row is read once per thread instead of three
  times. Eight rows per thread means only 2 extra rows of halo per 8 outputs. Edges repeat, as in
  the plain lesson, whose reference this shares. Try: compare the bandwidth with the plain and the
  shared-memory blurs on a big photo, and shrink the grid: each missing thread leaves a 4 × 8 hole.
param width: int = src.width
param height: int = src.height
buffer src: uchar4[width * height] in image("coffee.png")
buffer dst: uchar4[width * height] out zeros
block: 32 x 8
grid: ceil(width / (4 * block.x)) x ceil(height / (8 * block.y))
problem: ceil(width / 4) x ceil(height / 8)
view dst: image(width, height)
reference: box_blur_reference
tolerance: 1
*/
#define COLS 4  // pixels across per thread
#define ROWS 8  // rows down per thread

// The three-pixel sums across, per pixel of this thread's columns and per channel, of image row y.
__device__ void row_sums(const uchar4* __restrict__ src, int width, int height, int y, int gx, bool vec,
                         int sums[COLS][4])
{
    y = min(max(y, 0), height - 1);
    const uchar4* row = src + (long long)y * width;
    uchar4 p[COLS + 2];  // columns gx - 1 .. gx + COLS, clamped at the edges
    p[0] = row[max(gx - 1, 0)];
    if (vec) {
        const uint4 v = *reinterpret_cast<const uint4*>(row + gx);  // 16-byte aligned when width % 4 == 0
        const unsigned int w[4] = {v.x, v.y, v.z, v.w};
        for (int j = 0; j < COLS; ++j)
            p[1 + j] = make_uchar4(w[j] & 0xff, (w[j] >> 8) & 0xff, (w[j] >> 16) & 0xff, w[j] >> 24);
    } else {
        for (int j = 0; j < COLS; ++j) p[1 + j] = row[min(gx + j, width - 1)];
    }
    p[COLS + 1] = row[min(gx + COLS, width - 1)];
    for (int j = 0; j < COLS; ++j) {
        sums[j][0] = p[j].x + p[j + 1].x + p[j + 2].x;
        sums[j][1] = p[j].y + p[j + 1].y + p[j + 2].y;
        sums[j][2] = p[j].z + p[j + 1].z + p[j + 2].z;
        sums[j][3] = p[j].w + p[j + 1].w + p[j + 2].w;
    }
}

extern "C" __global__ void box_blur_wide(const uchar4* __restrict__ src, uchar4* __restrict__ dst, int width,
                                         int height)
{
    const int gx = (blockIdx.x * blockDim.x + threadIdx.x) * COLS;
    const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * ROWS;
    if (gx >= width || y0 >= height) return;
    const bool vec = width % COLS == 0;  // then gx + 3 < width too, and rows start 16-byte aligned

    int above[COLS][4], here[COLS][4], below[COLS][4];
    row_sums(src, width, height, y0 - 1, gx, vec, above);
    row_sums(src, width, height, y0, gx, vec, here);
    for (int r = 0; r < ROWS && y0 + r < height; ++r) {
        const int y = y0 + r;
        row_sums(src, width, height, y + 1, gx, vec, below);
        uchar4 out[COLS];
        for (int j = 0; j < COLS; ++j)  // round to nearest: (sum + 4) / 9
            out[j] = make_uchar4((above[j][0] + here[j][0] + below[j][0] + 4) / 9,
                                 (above[j][1] + here[j][1] + below[j][1] + 4) / 9,
                                 (above[j][2] + here[j][2] + below[j][2] + 4) / 9,
                                 (above[j][3] + here[j][3] + below[j][3] + 4) / 9);
        uchar4* drow = dst + (long long)y * width;
        if (vec) {
            unsigned int w[COLS];
            for (int j = 0; j < COLS; ++j)
                w[j] = out[j].x | (out[j].y << 8) | (out[j].z << 16) | ((unsigned int)out[j].w << 24);
            *reinterpret_cast<uint4*>(drow + gx) = make_uint4(w[0], w[1], w[2], w[3]);
        } else {
            for (int j = 0; j < COLS; ++j)
                if (gx + j < width) drow[gx + j] = out[j];
        }
        for (int j = 0; j < COLS; ++j)
            for (int c = 0; c < 4; ++c) {
                above[j][c] = here[j][c];
                here[j][c] = below[j][c];
            }
    }
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
