/*@playground
title: 2D indexing: row and column
category: Basics
tags: 2D, indexing, row-major
about: Matrices and images are stored row after row in one flat array (row-major), so element (row,
  col) of a matrix `width` wide is m[row * width + col]. A 2D grid of 2D blocks gives each thread a
  column col = blockIdx.x * blockDim.x + threadIdx.x and a row row = blockIdx.y * blockDim.y +
  threadIdx.y; here each writes m[idx] = row + col, a diagonal gradient. x goes along a row (columns),
  y down the rows. Try: swap row and col in the index (m[col * width + row]) and see the check fail,
  and where.
param width: int = 1000 range 1..8192
param height: int = 700 range 1..8192
buffer m: int[width * height] out constant(-1)
block: 16 x 16
grid: ceil(width / block.x) x ceil(height / block.y)
problem: width x height
view m: image(width, height) colormap=viridis
reference: row_plus_col
tolerance: 0
*/
extern "C" __global__ void index_2d(int* m, int width, int height)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < height && col < width) {
        int idx = row * width + col;
        m[idx] = row + col;
    }
}

#ifdef PLAYGROUND_REFERENCE
static void row_plus_col(int* m, int width, int height)
{
    for (int row = 0; row < height; ++row)
        for (int col = 0; col < width; ++col) m[row * width + col] = row + col;
}
#endif
