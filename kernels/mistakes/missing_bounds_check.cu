/*@playground
title: Missing bounds check (buggy on purpose)
category: Common mistakes
tags: bounds check, out of bounds, buggy on purpose
about: The grid is rounded up to whole blocks, so with n = 1000 and blocks of 256 there are 1024
  threads: 24 more than elements. This vector add forgets `if (i < n)`, so those 24 threads read and
  write past the end of the arrays. On the CPU backend every access is checked and the run stops
  with a fault naming the thread and the line. In a plain CUDA program the same bug is often silent:
  the stray writes land in memory the allocation rounded up to, or in another buffer, and the
  results look right until the day they don't. Here every GPU buffer has guard zones around it, so
  the run stops with "a thread wrote past the end of `c`"; run with --sanitize memcheck for the
  thread and the line. The fix is the guard. Try: add `if (i < n)` around the body and run again.
param n: int = 1000 range 1..1000000
buffer a: float[n] in random(seed=1, min=-1, max=1)
buffer b: float[n] in random(seed=2, min=-1, max=1)
buffer c: float[n] out zeros
block: 256
grid: ceil(n / block.x)
problem: n
view c: plot
reference: add_vectors
expect: fault
learn: a rounded-up grid has more threads than elements; guard every access with
  `if (i < n)`
tolerance: 1e-6
show: Output, Console
*/
extern "C" __global__ void missing_bounds_check(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    c[i] = a[i] + b[i];  // no `if (i < n)`: threads 1000..1023 go past the end
}

#ifdef PLAYGROUND_REFERENCE
static void add_vectors(const float* a, const float* b, float* c, int n)
{
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
#endif
