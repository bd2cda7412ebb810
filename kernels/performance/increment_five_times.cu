/*@playground
title: Dependent launches: increment five times
category: Performance
tags: launches, streams, ordering, steps, launch overhead
about: Launches on the same stream run one after another, in order: the second launch sees everything
  the first wrote, without any synchronisation in the kernels. This lesson launches the same kernel
  five times in a row (a step with `repeat=5`), each adding 1 to every element, so the result is the
  input + 5. Each launch costs a few microseconds of overhead on top of its work, which the step
  timings show: for tiny kernels, fusing work into fewer launches pays. Try: set n to 1000 and
  compare the time per launch with n = 10 million.
param n: int = 1000003 range 1..67108864
buffer x: int[n] inout ramp(start=0, step=1)
block: 256
grid: ceil(n / block.x)
step: increment repeat=5
problem: n
view x: plot
reference: plus_five
tolerance: 0
*/
extern "C" __global__ void increment(int* x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1;
}

#ifdef PLAYGROUND_REFERENCE
static void plus_five(int* x, int n)
{
    for (int i = 0; i < n; ++i) x[i] += 5;
}
#endif
