/*@playground
title: The round trip: allocate, copy in, compute, copy out
category: Memory
tags: transfers, cudaMalloc, cudaMemcpy, PCIe, timing
about: Every GPU computation on host data pays for the trip: allocate device memory (cudaMalloc), copy
  the inputs host->device, run the kernel, copy the results device->host. The Timing panel (and
  `run`'s "steps:" line) breaks each run into these four steps. For a light kernel like this one
  (y = a·x + y, two loads and a store per element) the copies over PCIe take many times longer than
  the kernel itself, which reads GPU memory at several TB/s: keep data on the GPU between kernels and
  copy only what you need. Try: raise n to 50 million and compare the host->device time with the
  kernel time.
param n: int = 4000037 range 1..100000000
param a: float = 2.0 range -10..10 step 0.5
buffer x: float[n] in random(seed=1, min=-1, max=1)
buffer y: float[n] inout random(seed=2, min=-1, max=1)
block: 256
grid: ceil(n / block.x)
problem: n
traffic: 3 * n * 4
view y: plot
reference: saxpy_loop
tolerance: 1e-6
show: Timing
*/
extern "C" __global__ void round_trip(const float* x, float* y, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}

#ifdef PLAYGROUND_REFERENCE
static void saxpy_loop(const float* x, float* y, float a, int n)
{
    for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
#endif
