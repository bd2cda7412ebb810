/*@playground
title: Pageable vs pinned host memory
category: Memory
tags: transfers, pinned memory, cudaMallocHost, PCIe, DMA
about: The GPU copies host memory by DMA, which needs pages the operating system promises not to move
  (page-locked, or pinned). Ordinary (pageable) memory from malloc or new must first be copied by the
  driver into a pinned staging buffer, chunk by chunk, so copies from it are slower, often by half.
  Memory allocated with cudaMallocHost is pinned from the start and the DMA reads it directly (it is
  also what cudaMemcpyAsync needs to overlap with kernels). The kernel here only scales the data:
  watch the host->device and device->host lines of the Timing panel. Try: tick "pinned host memory"
  in the Timing panel (or `run --pinned`) and compare both copy times at n = 50 million. On the CPU
  backend there is no PCIe bus and the box is not offered.
param n: int = 16000057 range 1..200000000
buffer x: float[n] inout random(seed=51, min=-1, max=1)
block: 256
grid: ceil(n / block.x)
problem: n
traffic: 2 * n * 4
view x: plot
reference: halve
tolerance: 0
show: Timing
*/
extern "C" __global__ void pageable_vs_pinned(float* x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] = 0.5f * x[i];
    }
}

#ifdef PLAYGROUND_REFERENCE
static void halve(float* x, int n)
{
    for (int i = 0; i < n; ++i) x[i] = 0.5f * x[i];
}
#endif
