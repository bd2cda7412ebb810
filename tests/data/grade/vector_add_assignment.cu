/*@playground
title: Assignment 1: vector add
about: Write the kernel: c[i] = a[i] + b[i] for every i below n. The grid may cover more threads than
  there are elements.
param n: int = 1024 range 1..100000000
buffer a: float[n] in random(seed=1)
buffer b: float[n] in random(seed=2)
buffer c: float[n] out zeros
block: 256
grid: ceil(n / block.x)
reference: vector_add_reference
tolerance: 1e-6
# The hidden part: the students' copy (export --for-students) has none of these lines.
grade case small: n = 1000
grade case odd: n = 1000003
grade case one: n = 1
grade tolerance: 1e-6
grade time: 5 s
grade sanitize: yes
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
