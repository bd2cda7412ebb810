/*@playground
title: Shared tile written past its last row (buggy on purpose)
category: Common mistakes
tags: shared memory, tile, transpose, out of bounds, blockDim, buggy on purpose
about: The padded transpose from Matrices stages each 32×32 tile in `tile[32][33]`. Its blocks are
  32×8: each thread copies 4 elements, ROWS = 8 rows apart, so the loop `j += ROWS` covers rows
  threadIdx.y, +8, +16 and +24. Here the block was changed to 32×32 and ROWS was not: threads with
  threadIdx.y ≥ 8 now reach rows 32 to 55 of a tile that has 32. On a GPU the block writes past its
  shared memory and the launch fails with an illegal address. On the CPU backend every shared array
  is guarded too, and the run stops naming the thread, the line and the element, `tile[32][0]`: the
  first row past the tile. Try: set the block back to 32 x 8 (or make ROWS equal blockDim.y).
param width: int = 203 range 1..8192
param height: int = 117 range 1..8192
buffer in: float[width * height] in random(seed=7, min=0, max=1)
buffer out: float[width * height] out zeros
block: 32 x 32
grid: ceil(width / 32) x ceil(height / 32)
problem: width x ceil(height / 4)
view out: image(height, width) colormap=viridis
reference: transpose_loops
expect: fault
learn: a tile filled ROWS rows at a time by a block of blockDim.y threads overruns it unless
  ROWS == blockDim.y; keep the two together (or loop while threadIdx.y + j < TILE)
tolerance: 0
show: Output, Console
*/
#define TILE 32
#define ROWS 8  // what blockDim.y must be: the loops step ROWS rows at a time

extern "C" __global__ void shared_tile_overflow(const float* in, float* out, int width, int height)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) {
        // With blockDim.y = 32, threadIdx.y + j runs up to 55: rows 32..55 are past the tile.
        if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    }
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) {
        if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
    }
}

#ifdef PLAYGROUND_REFERENCE
static void transpose_loops(const float* in, float* out, int width, int height)
{
    for (int row = 0; row < height; ++row)
        for (int col = 0; col < width; ++col) out[col * height + row] = in[row * width + col];
}
#endif
