/*@playground
title: Eight ways to transpose (pasted)
category: Pasted samples
about: A file of eight kernels, as the public transpose sample has: a copy for the bandwidth ceiling,
  then transposes from naive to tiled with padding and diagonal block order. `kernel:` picks one.
kernel: transposeNoBankConflicts
param width: int = 203
param height: int = 117
buffer dst: float[width * height] out zeros
buffer src: float[width * height] in random(seed=21, min=-1, max=1)
block: 32 x 8
grid: ceil(width / 32) x ceil(height / 32)
reference: transpose_reference
tolerance: 0
*/
#define TILE_DIM 32
#define BLOCK_ROWS 8

// dst = src, element for element: the bandwidth a transpose would like to reach.
__global__ void copy(float* dst, const float* src, int width, int height)
{
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height) dst[(y + j) * width + x] = src[(y + j) * width + x];
}

// The same copy, staged through shared memory.
__global__ void copySharedMem(float* dst, const float* src, int width, int height)
{
    __shared__ float tile[TILE_DIM * TILE_DIM];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height) tile[(threadIdx.y + j) * TILE_DIM + threadIdx.x] = src[(y + j) * width + x];
    __syncthreads();
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height) dst[(y + j) * width + x] = tile[(threadIdx.y + j) * TILE_DIM + threadIdx.x];
}

// dst is height x width: reads are coalesced, writes are strided.
__global__ void transposeNaive(float* dst, const float* src, int width, int height)
{
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height) dst[x * height + (y + j)] = src[(y + j) * width + x];
}

// Through a shared tile so that writes are coalesced too; column reads of the tile conflict on banks.
__global__ void transposeCoalesced(float* dst, const float* src, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = src[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < height && y + j < width) dst[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

// One padding column moves each tile row to another bank.
__global__ void transposeNoBankConflicts(float* dst, const float* src, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = src[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < height && y + j < width) dst[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

// Blocks walk the tiles along diagonals, spreading concurrent blocks over memory partitions.
__global__ void transposeDiagonal(float* dst, const float* src, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int bx, by;
    if (gridDim.x == gridDim.y) {
        by = blockIdx.x;
        bx = (blockIdx.x + blockIdx.y) % gridDim.x;
    } else {
        int flat = blockIdx.x + gridDim.x * blockIdx.y;
        by = flat % gridDim.y;
        bx = ((flat / gridDim.y) + by) % gridDim.x;
    }
    int x = bx * TILE_DIM + threadIdx.x;
    int y = by * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = src[(y + j) * width + x];
    __syncthreads();
    x = by * TILE_DIM + threadIdx.x;
    y = bx * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < height && y + j < width) dst[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

// Only the tile's rows move (each tile keeps its place): a partial step towards a transpose.
__global__ void transposeFineGrained(float* dst, const float* src, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = src[(y + j) * width + x];
    __syncthreads();
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height) dst[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];
}

// Only whole tiles move (their contents stay in place): the other partial step.
__global__ void transposeCoarseGrained(float* dst, const float* src, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = src[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < height && y + j < width) dst[(y + j) * height + x] = tile[threadIdx.y + j][threadIdx.x];
}

#ifdef PLAYGROUND_REFERENCE
// src is `height` rows of `width`; dst is `width` rows of `height`.
static void transpose_reference(const float* src, float* dst, int width, int height)
{
    for (int row = 0; row < height; ++row)
        for (int col = 0; col < width; ++col) dst[col * height + row] = src[row * width + col];
}
#endif
