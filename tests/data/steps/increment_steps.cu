/*@playground
title: Increment five times (steps test)
param n: int = 10007
param times: int = 5
buffer x: int[n] inout ramp(start=-2, step=3)
block: 256
grid: ceil(n / block.x)
step: increment repeat=times
reference: plus_times
tolerance: 0
*/
extern "C" __global__ void increment(int* x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1;
}

#ifdef PLAYGROUND_REFERENCE
static void plus_times(int* x, int n, int times)
{
    for (int i = 0; i < n; ++i) x[i] += times;
}
#endif
