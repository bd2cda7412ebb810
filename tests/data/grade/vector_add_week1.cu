/*@playground
title: Week 1: vector add
about: Write the kernel: c[i] = a[i] + b[i] for every i below n. The grid may cover more threads than
  there are elements, and n need not be a multiple of the block.
param n: int = 4096 range 1..100000000
buffer a: float[n] in random(seed=1, min=-10, max=10)
buffer b: float[n] in random(seed=2, min=-10, max=10)
buffer c: float[n] out zeros
block: 256
grid: ceil(n / block.x)
reference: vector_add_reference
tolerance: 1e-6
# The hidden part: a size the block divides, one it does not, and one element.
grade case even: n = 65536
grade case odd: n = 100003, seed = 5
grade case one: n = 1
grade time: 1 s
grade score: correct 80, speed 20
*/
__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

#ifdef PLAYGROUND_REFERENCE
static void vector_add_reference(const float* a, const float* b, float* c, int n)
{
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
#endif
