/*@playground
title: Vector add in a single block
category: Basics
tags: 1D, block size, limits
about: The simplest launch: one block of n threads, thread i adds element i (no blockIdx needed). It
  works for n = 1000, but a block can hold at most 1024 threads on every CUDA GPU so far: for more
  elements you need more blocks (the next lesson, "Vector add"). One block also runs on one SM only,
  leaving the rest of the GPU idle. Try: set n to 1025 and read why the launch is refused.
param n: int = 1000 range 1..4096
buffer a: float[n] in random(seed=1, min=-1, max=1)
buffer b: float[n] in random(seed=2, min=-1, max=1)
buffer c: float[n] out zeros
block: n
grid: 1
problem: n
view c: plot
reference: add_vectors
tolerance: 1e-6
*/
extern "C" __global__ void one_block_vector_add(const float* a, const float* b, float* c, int n)
{
    int i = threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}

#ifdef PLAYGROUND_REFERENCE
static void add_vectors(const float* a, const float* b, float* c, int n)
{
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
#endif
