/*@playground
title: A barrier in each half of a branch (the debugger's tests)
about: The first warp waits at one __syncthreads(), the second at another: on a GPU the block hangs or
  misbehaves; the debugger stops where they wait and names both lines.
param n: int = 64 range 1..1000
buffer out: int[n] out zeros
block: 64
grid: ceil(n / block.x)
*/
__global__ void halves(int* out, int n)
{
    int t = threadIdx.x;
    if (t < 32) {
        out[t] = 1;
        __syncthreads();
    } else {
        out[t] = 2;
        __syncthreads();
    }
}
