/*@playground
title: printf from a kernel: doubling values
category: Basics
tags: printf, debugging, 1D
about: Kernels can print. Each thread prints the value it reads, doubles it, and prints what it wrote;
  the lines appear in the Console (and in `run`'s output) after the kernel ends. On a GPU the 32
  threads of a warp print their "before" lines together, then their "after" lines, and blocks come in
  whatever order the GPU runs them; the CPU backend runs one thread after another, so its order is
  different again: never rely on it. printf is for small debugging runs: with a million threads it
  would flood the console and slow the kernel down. Try: set n to 20 and block to 8, and find the lines of
  block 2 (the last, partly empty block).
param n: int = 10 range 1..64
buffer x: float[n] in ramp(start=1, step=1)
buffer y: float[n] out zeros
block: 4
grid: ceil(n / block.x)
problem: n
view y: table
reference: double_values
tolerance: 0
show: Console
*/
extern "C" __global__ void printf_double(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        printf("block %d thread %d: before x[%d] = %.1f\n", blockIdx.x, threadIdx.x, i, x[i]);
        y[i] = 2.0f * x[i];
        printf("block %d thread %d: after  y[%d] = %.1f\n", blockIdx.x, threadIdx.x, i, y[i]);
    }
}

#ifdef PLAYGROUND_REFERENCE
static void double_values(const float* x, float* y, int n)
{
    for (int i = 0; i < n; ++i) y[i] = 2.0f * x[i];
}
#endif
