/*@playground
title: Transpose through shared memory, padded against bank conflicts
category: Matrices
tags: transpose, shared memory, bank conflicts, coalescing, bandwidth
about: Each block copies a 32×32 tile of the input into shared memory with coalesced reads, waits
  (__syncthreads), and writes the tile out transposed, again with coalesced writes: the reordering
  happens in fast shared memory instead of in global memory. Shared memory is split into 32 banks of
  4-byte words; reading a column of a 32×32 float tile hits the same bank 32 times (a 32-way bank
  conflict, the accesses are serialised). One extra column of padding, tile[32][33], shifts each row
  by one bank and the conflict disappears. The block is 32×8: each thread moves 4 elements. Try:
  remove the + 1 and compare the time.
param width: int = 2000 range 1..8192
param height: int = 1500 range 1..8192
buffer in: float[width * height] in random(seed=21, min=0, max=1)
buffer out: float[width * height] out zeros
block: 32 x 8
grid: ceil(width / 32) x ceil(height / 32)
problem: width x ceil(height / 4)
traffic: 2 * width * height * 4
view out: image(height, width) colormap=viridis
reference: transpose_loops
tolerance: 0
*/
#define TILE 32
#define ROWS 8  // blockDim.y: each thread handles TILE / ROWS elements

extern "C" __global__ void transpose_shared(const float* in, float* out, int width, int height)
{
    __shared__ float tile[TILE][TILE + 1];  // + 1: no bank conflicts when a column is read
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) {
        if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    }
    __syncthreads();
    // The transposed tile: block (bx, by) writes output tile (by, bx).
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
