/*@playground
title: More than one GPU: splitting an array
category: More than one GPU
tags: multi-GPU, data parallel, scaling
about: With several GPUs, the simplest way to use them all is to split the data: GPU g gets elements
  [g·n/G, (g+1)·n/G), copies its part in, runs the same kernel on it and copies its part out, each
  GPU on its own, with no communication. The time then drops to about 1/G, as long as each part is
  big enough to fill a GPU. The playground drives one GPU per window today (one worker, one device),
  so this lesson runs the split on one GPU: `parts` pieces, each block working on its piece, which
  gives the same result and shows how the indices are split. Try: set `parts` to 3 and check that
  every element is still covered once (the check would catch a gap or an overlap).
param n: int = 1000003 range 1..100000000
param parts: int = 2 range 1..16
buffer x: float[n] in random(seed=41, min=-1, max=1)
buffer y: float[n] out constant(-9)
block: 256
grid: ceil(n / block.x)
problem: n
view y: plot
reference: scaled_copy
tolerance: 1e-6
*/
// Element i belongs to part p = the part whose range [p*n/parts, (p+1)*n/parts) holds it; on G GPUs, part p
// would be GPU p's whole job, with its own copy of the kernel and of its slice of x and y.
extern "C" __global__ void split_across_gpus(const float* x, float* y, int n, int parts)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int part = (int)(((long long)i * parts) / n);              // a first guess from the proportion
    while (i >= (long long)(part + 1) * n / parts) ++part;      // rounding (or empty parts) can put i further
    long long begin = (long long)part * n / parts;
    long long end = (long long)(part + 1) * n / parts;
    if (i >= begin && i < end) {
        y[i] = 3.0f * x[i];
    }
}

#ifdef PLAYGROUND_REFERENCE
static void scaled_copy(const float* x, float* y, int n)
{
    for (int i = 0; i < n; ++i) y[i] = 3.0f * x[i];
}
#endif
