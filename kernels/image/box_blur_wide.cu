/*@playground
title: Box blur 3×3, 4 × 16 pixels per thread
category: Image filters
tags: 2D, image, stencil, registers, vector loads, performance
about: The 3×3 box blur tuned for bandwidth without shared memory. Each thread produces a strip of
  4 pixels across and 16 rows down. For each input row it needs, it makes one 16-byte load (the four
  pixels above its columns) plus the single pixels left and right, and adds each pixel to its
  neighbours across (a row sum); the output row is then the sum of three row sums, which the thread
  keeps in registers as it slides down, so each input row is read once per thread instead of three
  times, and 16 rows per thread means only 2 extra rows of halo per 16 outputs. Two channels share a
  32-bit register (R and B, G and A, 16 bits each: a sum of nine bytes is at most 2295), which
  halves the registers the sums need (56 per thread, so 4 blocks fit on an SM), the next row's load
  is issued before the current row is summed, and the stores are streaming (__stcs). Dividing by 9
  is done in floating point: the 16-bit sum becomes a float by placing it in the mantissa of 2^23,
  one fused multiply-add by 1/9 plus 1.5 × 2^23 leaves round(sum / 9) in the low byte, which is
  exact for every sum up to 2295 and cheaper than the integer division. On an H200 with a 3840×2160
  photo this reaches about 72% of the copy bandwidth (integer division and 8 rows: 68%; a channel
  per register and no early load: 42%). A kernel that only copies the same bytes (grayscale_fast)
  reaches about 89% there: the start and end of a kernel of some 20 µs cannot be hidden. The rest is
  the blur's own: 18 rows loaded per 16 written, six 4-byte words per four pixels, and a single wave
  of 510 blocks, each thread walking its 16 rows in turn, so too few loads are in flight. Edges
  repeat, as in the plain lesson, whose reference this shares. Try: compare the bandwidth with the
  plain and the shared-memory blurs on a big photo, and shrink the grid: each missing thread leaves a
  4 × 16 hole.
param width: int = src.width
param height: int = src.height
buffer src: uchar4[width * height] in image("coffee.png")
buffer dst: uchar4[width * height] out zeros
block: 32 x 8
grid: ceil(width / (4 * block.x)) x ceil(height / (16 * block.y))
problem: ceil(width / 4) x ceil(height / 16)
view dst: image(width, height)
reference: box_blur_reference
tolerance: 1
*/
#define COLS 4  // pixels across per thread
#define ROWS 16  // rows down per thread

// Two channels in one 32-bit register: R and B (the even bytes) or G and A (the odd ones), each in 16 bits.
// A sum of nine bytes is at most 2295, so the two halves never carry into each other.
__device__ unsigned int even_bytes(unsigned int p) { return p & 0x00ff00ffu; }
__device__ unsigned int odd_bytes(unsigned int p) { return __byte_perm(p, 0, 0x4341); }

// One input row's pixels for this thread: columns gx - 1 .. gx + COLS, clamped at the edges.
struct RowPixels {
    unsigned int p[COLS + 2];
};
__device__ RowPixels load_row(const uchar4* __restrict__ src, int width, int height, int y, int gx, bool vec)
{
    y = min(max(y, 0), height - 1);
    const unsigned int* row = reinterpret_cast<const unsigned int*>(src + (long long)y * width);
    RowPixels r;
    r.p[0] = row[max(gx - 1, 0)];
    if (vec) {
        const uint4 v = *reinterpret_cast<const uint4*>(row + gx);  // 16-byte aligned when width % 4 == 0
        r.p[1] = v.x, r.p[2] = v.y, r.p[3] = v.z, r.p[4] = v.w;
    } else {
        for (int j = 0; j < COLS; ++j) r.p[1 + j] = row[min(gx + j, width - 1)];
    }
    r.p[COLS + 1] = row[min(gx + COLS, width - 1)];
    return r;
}
// The three-pixel sums across of each of this thread's columns, two channels per register.
__device__ void row_sums(const RowPixels& r, unsigned int even[COLS], unsigned int odd[COLS])
{
    for (int j = 0; j < COLS; ++j) {
        even[j] = even_bytes(r.p[j]) + even_bytes(r.p[j + 1]) + even_bytes(r.p[j + 2]);
        odd[j] = odd_bytes(r.p[j]) + odd_bytes(r.p[j + 1]) + odd_bytes(r.p[j + 2]);
    }
}
// round(sum / 9) of one 16-bit half (sel 0x7610: the low half, 0x7632: the high one), in the low byte:
// 0x4b00xxxx is the float 2^23 + xxxx, so f is the sum exactly; adding 1.5 * 2^23 rounds f / 9 to an
// integer in the low mantissa bits (checked for every sum from 0 to 2295).
__device__ __forceinline__ unsigned int div9(unsigned int s, unsigned int sel)
{
    const float f = __uint_as_float(__byte_perm(s, 0x4b000000u, sel)) - 8388608.0f;
    return __float_as_uint(fmaf(f, 1.0f / 9.0f, 12582912.0f));
}
__device__ __forceinline__ unsigned int pixel_of(unsigned int even, unsigned int odd)
{
    const unsigned int r = div9(even, 0x7610), b = div9(even, 0x7632), g = div9(odd, 0x7610), a = div9(odd, 0x7632);
    return __byte_perm(__byte_perm(r, g, 0x0040), __byte_perm(b, a, 0x0040), 0x5410);
}

extern "C" __global__ void box_blur_wide(const uchar4* __restrict__ src, uchar4* __restrict__ dst, int width,
                                         int height)
{
    const int gx = (blockIdx.x * blockDim.x + threadIdx.x) * COLS;
    const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * ROWS;
    if (gx >= width || y0 >= height) return;
    const bool vec = width % COLS == 0;  // then gx + 3 < width too, and rows start 16-byte aligned
    unsigned int above_e[COLS], above_o[COLS], here_e[COLS], here_o[COLS], below_e[COLS], below_o[COLS];
    row_sums(load_row(src, width, height, y0 - 1, gx, vec), above_e, above_o);
    row_sums(load_row(src, width, height, y0, gx, vec), here_e, here_o);
    RowPixels next = load_row(src, width, height, y0 + 1, gx, vec);
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        if (y0 + r >= height) break;
        const int y = y0 + r;
        row_sums(next, below_e, below_o);
        if (r + 1 < ROWS) next = load_row(src, width, height, y + 2, gx, vec);  // on its way while this row is done
        unsigned int w[COLS];
        for (int j = 0; j < COLS; ++j)
            w[j] = pixel_of(above_e[j] + here_e[j] + below_e[j], above_o[j] + here_o[j] + below_o[j]);
        uchar4* drow = dst + (long long)y * width;
        if (vec) {
            // Streaming (__stcs): written once, never read back here, so the cache need not keep it.
            __stcs(reinterpret_cast<uint4*>(drow + gx), make_uint4(w[0], w[1], w[2], w[3]));
        } else {
            for (int j = 0; j < COLS; ++j)
                if (gx + j < width) reinterpret_cast<unsigned int*>(drow)[gx + j] = w[j];
        }
        for (int j = 0; j < COLS; ++j) {
            above_e[j] = here_e[j], above_o[j] = here_o[j];
            here_e[j] = below_e[j], here_o[j] = below_o[j];
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
