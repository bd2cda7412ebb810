/*@playground
title: Vector add
category: Basics
tags: 1D, indexing, bounds check
about: The "hello world" of CUDA. Every thread computes one element c[i] = a[i] + b[i], where
  i = blockIdx.x * blockDim.x + threadIdx.x is the thread's global index. The grid is rounded up to
  whole blocks, so the last block has threads past the end of the arrays: the `if (i < n)` guard keeps
  them from writing out of bounds. Try removing it, or a grid that is too small.
param n: int = 1000003 range 1..67108864
buffer a: float[n] in random(seed=1, min=-1, max=1)
buffer b: float[n] in ramp(start=0, step=0.001)
buffer c: float[n] out zeros
block: 256
grid: ceil(n / block.x)
problem: n
view c: plot
reference: vector_add_reference
tolerance: 1e-6
*/
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}

#ifdef PLAYGROUND_REFERENCE
// Single-precision sums, as the kernel's: IEEE float addition is exactly rounded, so they agree exactly.
static void vector_add_reference(const float* a, const float* b, float* c, int n)
{
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
#endif
