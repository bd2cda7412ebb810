/*@playground
title: Thread IDs in 2D
category: Basics
tags: 2D, indexing, grid, blocks
about: Each thread writes its own global linear index y * width + x into the element it owns, where
  x = blockIdx.x * blockDim.x + threadIdx.x and y = blockIdx.y * blockDim.y + threadIdx.y. The image
  shows how a 2D grid of 2D blocks tiles the output. Try: colour the Launch view by block, then set
  the grid to 10 x 6: the elements nobody writes keep their -1 and the coverage map counts them.
param width: int = 333 range 1..8192
param height: int = 200 range 1..8192
buffer ids: int[width * height] out constant(-1)
block: 16 x 16
grid: ceil(width / block.x) x ceil(height / block.y)
problem: width x height
view ids: image(width, height) colormap=viridis
reference: thread_ids_reference
tolerance: 0
*/
extern "C" __global__ void thread_ids(int* ids, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        ids[y * width + x] = y * width + x;
    }
}

#ifdef PLAYGROUND_REFERENCE
// Every element holds its own row-major position: count up in storage order.
static void thread_ids_reference(int* ids, int width, int height)
{
    int next = 0;
    for (int row = 0; row < height; ++row)
        for (int col = 0; col < width; ++col) {
            ids[next] = next;
            ++next;
        }
}
#endif
