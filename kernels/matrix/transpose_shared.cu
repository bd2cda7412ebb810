/*@playground
title: Transpose through shared memory, padded against bank conflicts
category: Matrices
tags: transpose, shared memory, bank conflicts, coalescing, bandwidth
about: Each block copies a 32×32 tile of the input into shared memory with coalesced reads, waits
  (__syncthreads), and writes the tile out transposed, again with coalesced writes: the reordering
  happens in fast shared memory instead of in global memory. Shared memory is split into 32 banks of
  4-byte words; reading a column of a 32×32 float tile hits the same bank 32 times (a 32-way bank
  conflict, the accesses are serialised). One extra column of padding (rows 33 floats apart, the classic
  tile[32][33]) shifts each row by one bank and the conflict disappears: `pad` is that extra column. The
  block is 32×8: each thread moves 4 elements. In the memory figures (Memory panel, or `run --memory`),
  the line that reads the tile column-wise shows a 32-way bank conflict with pad = 0 and none with pad = 1;
  the global loads and stores stay at about 4 sectors per request (ideal 4) either way, where the naive
  transpose's stores need 32. Try: pad 0, 1, 2 and 4 (2 and 4 leave 2- and 4-way conflicts: only an odd
  row length spreads a column over all 32 banks), and compare the time on a GPU. On an H200 with a
  3840×2160 matrix and pad = 1 this reaches about 86% of the copy bandwidth (pad = 0: about 36%, the
  conflicts); the rest goes to the barrier between loading and storing a tile, which leaves each
  block idle while its slowest warp's loads arrive.
param width: int = 1100 range 1..8192
param height: int = 900 range 1..8192
param pad: int = 1 range 0..4
buffer in: float[width * height] in random(seed=21, min=0, max=1)
buffer out: float[width * height] out zeros
block: 32 x 8
grid: ceil(width / 32) x ceil(height / 32)
problem: width x ceil(height / 4)
traffic: 2 * width * height * 4
view out: image(height, width) colormap=viridis
reference: transpose_loops
tolerance: 0
show: Memory
*/
#define TILE 32
#define ROWS 8     // blockDim.y: each thread handles TILE / ROWS elements
#define MAX_PAD 4  // the largest `pad`: room for TILE rows of TILE + MAX_PAD floats

// A pad known when compiling: the kernel below picks one of five, so the pitch is a constant the compiler
// folds into each address (read from the parameter, it costs each access a multiply: about 4% of the bandwidth
// on an H200).
template <int P>
struct Pad {
    static constexpr int value = P;
};

extern "C" __global__ void transpose_shared(const float* in, float* out, int width, int height, int pad)
{
    // Room for TILE rows of TILE + MAX_PAD floats (pad = 1 is the classic tile[32][33]).
    __shared__ float tile[TILE * (TILE + MAX_PAD)];
    auto transpose_tile = [&](auto padding) {
        constexpr int pad = decltype(padding)::value;
        // A TILE x TILE tile whose rows are TILE + pad floats apart: element (r, c) is word r * pitch + c, in bank
        // (r * pitch + c) % 32.
        const int pitch = TILE + pad;
        int x = blockIdx.x * TILE + threadIdx.x;
        int y = blockIdx.y * TILE + threadIdx.y;
        for (int j = 0; j < TILE; j += ROWS) {
            // A warp writes one row of the tile: 32 neighbouring words, no conflict whatever the pitch. The global
            // load is marked streaming (__ldcs: each element is read once, the cache need not keep it).
            if (x < width && y + j < height) tile[(threadIdx.y + j) * pitch + threadIdx.x] = __ldcs(&in[(y + j) * width + x]);
        }
        __syncthreads();
        // The transposed tile: block (bx, by) writes output tile (by, bx).
        x = blockIdx.y * TILE + threadIdx.x;
        y = blockIdx.x * TILE + threadIdx.y;
        for (int j = 0; j < TILE; j += ROWS) {
            // A warp reads one column of the tile: words pitch apart, 32-way conflict when pitch is 32.
            if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x * pitch + threadIdx.y + j];
        }
    };
    switch (pad) {
        case 0: transpose_tile(Pad<0>()); break;
        case 1: transpose_tile(Pad<1>()); break;
        case 2: transpose_tile(Pad<2>()); break;
        case 3: transpose_tile(Pad<3>()); break;
        default: transpose_tile(Pad<4>()); break;
    }
}
#ifdef PLAYGROUND_REFERENCE
static void transpose_loops(const float* in, float* out, int width, int height)
{
    for (int row = 0; row < height; ++row)
        for (int col = 0; col < width; ++col) out[col * height + row] = in[row * width + col];
}
#endif
