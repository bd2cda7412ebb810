/*@playground
title: Box blur 3×3, tile in shared memory
category: Image filters
tags: 2D, image, stencil, shared memory, halo, performance
about: The 3×3 box blur with its input staged in shared memory. A block of 32 × 8 threads produces a
  32 × 32 tile of the output, four rows per thread. First all 256 threads copy the 34 × 34 input
  pixels the tile needs (the tile plus a one-pixel halo, clamped at the image borders) into shared
  memory, each global pixel read once per block; after __syncthreads() every output reads its nine
  neighbours from shared memory. Each thread keeps the sums of the columns it slides over, so a
  new output row costs three more reads, not nine. Both lessons give the same picture (same
  reference). The block must be 32 × 8. Try: compare the time with the plain box blur on a big
  photo, and shrink the grid to see which 32 × 32 tiles are missing.
param width: int = src.width
param height: int = src.height
buffer src: uchar4[width * height] in image("coffee.png")
buffer dst: uchar4[width * height] out zeros
block: 32 x 8
grid: ceil(width / 32) x ceil(height / 32)
problem: width x ceil(height / 4)
view dst: image(width, height)
reference: box_blur_reference
tolerance: 1
*/
#define TILE 32           // output tile: TILE x TILE pixels per block
#define ROWS 4            // output rows per thread (TILE / blockDim.y)

extern "C" __global__ void __launch_bounds__(256) box_blur_shared(const uchar4* __restrict__ src,
                                                                  uchar4* __restrict__ dst, int width, int height)
{
    __shared__ uchar4 tile[TILE + 2][TILE + 2];
    const int x0 = blockIdx.x * TILE - 1, y0 = blockIdx.y * TILE - 1;  // the halo's top-left, in the image
    const int t = threadIdx.y * TILE + threadIdx.x;
    for (int l = t; l < (TILE + 2) * (TILE + 2); l += TILE * (TILE / ROWS)) {
        const int ty = l / (TILE + 2), tx = l % (TILE + 2);
        const int sx = min(max(x0 + tx, 0), width - 1), sy = min(max(y0 + ty, 0), height - 1);
        tile[ty][tx] = src[sy * width + sx];
    }
    __syncthreads();

    const int x = blockIdx.x * TILE + threadIdx.x;
    const int first = threadIdx.y * ROWS;  // this thread's first output row in the tile
    if (x >= width) return;
    // col[r][c]: the sum of the three pixels of tile row `first + r` around this column, per channel.
    int col[ROWS + 2][4];
    for (int r = 0; r < ROWS + 2; ++r) {
        const uchar4 a = tile[first + r][threadIdx.x], b = tile[first + r][threadIdx.x + 1],
                     c = tile[first + r][threadIdx.x + 2];
        col[r][0] = a.x + b.x + c.x;
        col[r][1] = a.y + b.y + c.y;
        col[r][2] = a.z + b.z + c.z;
        col[r][3] = a.w + b.w + c.w;
    }
    for (int r = 0; r < ROWS; ++r) {
        const int y = blockIdx.y * TILE + first + r;
        if (y >= height) return;
        int s[4];
        for (int ch = 0; ch < 4; ++ch) s[ch] = (col[r][ch] + col[r + 1][ch] + col[r + 2][ch] + 4) / 9;
        dst[y * width + x] = make_uchar4(s[0], s[1], s[2], s[3]);
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
