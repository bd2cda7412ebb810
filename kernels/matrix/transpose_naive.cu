/*@playground
title: Transpose, naive
category: Matrices
tags: transpose, 2D, coalescing, bandwidth
about: out = transpose(in): element (row, col) of the height×width input goes to (col, row) of the output. Each
  thread moves one element. Neighbouring threads (consecutive x) read neighbouring input elements, so
  the reads are coalesced, but they write elements `height` floats apart, one per row of the output,
  so every write is a separate memory transaction. The shared-memory transpose, which makes both
  sides coalesced, runs beside it on the same matrix (the Output panel's columns, the Timing panel). Try: swap the roles (read strided,
  write contiguous) and see whether reads or writes cost more. On the CPU backend there are no memory
  transactions to coalesce: the two times there say nothing about a GPU (the Timing panel says so).
  The memory figures (Memory panel, or `run --memory`) count it on either backend: the load line needs
  about 4 sectors per request (ideal 4), the store line 32 (ideal 4), 8 times the traffic; run the shared
  transpose alone with the figures on to see both of its sides at 4, and its tile read with no bank
  conflict (or a 32-way one with pad = 0).
param width: int = 1100 range 1..8192
param height: int = 900 range 1..8192
buffer in: float[width * height] in random(seed=21, min=0, max=1)
buffer out: float[width * height] out zeros
block: 32 x 8
grid: ceil(width / block.x) x ceil(height / block.y)
problem: width x height
traffic: 2 * width * height * 4
view out: image(height, width) colormap=viridis
reference: transpose_loops
compare: matrix/transpose_shared
tolerance: 0
show: Compare, Memory, Timing
*/
extern "C" __global__ void transpose_naive(const float* in, float* out, int width, int height)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < width && row < height) {
        out[col * height + row] = in[row * width + col];
    }
}

#ifdef PLAYGROUND_REFERENCE
static void transpose_loops(const float* in, float* out, int width, int height)
{
    for (int row = 0; row < height; ++row)
        for (int col = 0; col < width; ++col) out[col * height + row] = in[row * width + col];
}
#endif
