/*@playground
title: More than one GPU: splitting an array
category: More than one GPU
tags: multi-GPU, data parallel, scaling
about: With several GPUs, the simplest way to use them all is to split the data. `devices: all over n` asks
  the playground to do that with one worker per GPU: GPU g gets elements [g·n/G, (g+1)·n/G), allocates
  its part of x and y, copies its part of x in, launches this same kernel with n set to its part's length
  (and the grid worked out again for it), and copies its part of y out. All GPUs work at the same time,
  without talking to each other; the playground then puts y back together and checks it. The kernel
  itself knows nothing about the split: it sees a shorter array starting at 0. The Timing panel lists
  each GPU's part and times and the speed-up over one GPU doing it all; with one GPU it says what it
  would do. Try: treat `i` as the index in the whole array, writing `y[i] = i` in the kernel and in the
  reference: on one GPU it checks, on two the check fails from GPU 1's first element on, because every
  part's `i` starts again at 0. Only one GPU? Start the playground with CUDA_PLAYGROUND_CPU_DEVICES=2
  and the CPU backend: two CPU workers then play two GPUs.
param n: int = 1000003 range 1..100000000
buffer x: float[n] in random(seed=41, min=-1, max=1)
buffer y: float[n] out constant(-9)
block: 256
grid: ceil(n / block.x)
problem: n
devices: all over n
view y: plot
reference: scaled_copy
tolerance: 1e-6
show: Timing
*/
// One GPU's whole job: y = 3x on its part. n is the part's length, so the bounds check stops at the end of
// the part (n is not a multiple of 256, and neither is a part's length).
extern "C" __global__ void split_across_gpus(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = 3.0f * x[i];
    }
}

#ifdef PLAYGROUND_REFERENCE
static void scaled_copy(const float* x, float* y, int n)
{
    for (int i = 0; i < n; ++i) y[i] = 3.0f * x[i];
}
#endif
