/*@playground
title: Device query: what a kernel can see
category: Basics
tags: device, warpSize, gridDim, blockDim, first kernel
about: Before writing kernels, know the machine: the Device panel lists the GPU's name, its number of
  streaming multiprocessors (SMs), its memory and the limits a launch must respect (1024 threads per
  block, 48 KiB of shared memory per block...). A kernel sees a few of these facts itself, as built-in
  variables: every thread of this tiny kernel records one of them (warpSize, blockDim.x, gridDim.x, its
  block's number) in the table. Try: set `threads` to 100 and `blocks` to 7 and see which rows change.
param threads: int = 96 range 1..1024
param blocks: int = 3 range 1..65535
buffer facts: int[6] out constant(-1)
block: threads
grid: blocks
view facts: table
reference: device_query_facts
tolerance: 0
show: Output, Device
*/
// facts[0] warpSize, [1] blockDim.x, [2] gridDim.x, [3] threads in the grid, [4] the last block's number,
// [5] warps per block (rounded up). Thread 0 of the last block writes them all. `threads` and `blocks` are
// what the header launched with; the kernel reads the same facts from its built-in variables instead.
extern "C" __global__ void device_query(int* facts, int threads, int blocks)
{
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) {
        facts[0] = warpSize;
        facts[1] = blockDim.x;
        facts[2] = gridDim.x;
        facts[3] = blockDim.x * gridDim.x;
        facts[4] = blockIdx.x;
        facts[5] = (blockDim.x + warpSize - 1) / warpSize;
    }
}

#ifdef PLAYGROUND_REFERENCE
// The same facts from the launch the lesson asked for: `threads` per block, `blocks` in the grid.
static void device_query_facts(int* facts, int threads, int blocks)
{
    const int warp = 32;
    const int expected[6] = {warp, threads, blocks, threads * blocks, blocks - 1, (threads + warp - 1) / warp};
    for (int i = 0; i < 6; ++i) facts[i] = expected[i];
}
#endif
