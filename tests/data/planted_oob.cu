/*@playground
title: Planted out-of-bounds write (test)
category: Tests
about: Writes `offset` elements past where it should: with the default offset every thread writes past
  the end of `out`, thread 0 of block 0 exactly one element past it.
param n: int = 1000 range 1..1000000
param offset: int = 1000 range 0..2000000000
buffer out: float[n] out zeros
block: 128
grid: ceil(n / block.x)
problem: n
view out: plot
*/
extern "C" __global__ void planted_oob(float* out, int n, int offset)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[(long long)i + offset] = 1.0f;
    }
}
