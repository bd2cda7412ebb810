/*@playground
title: Lanes that take different branches (the debugger's tests)
about: Threads whose index is a multiple of 3 take one branch, the others the other; a block of 48
  threads is a whole warp and half of the next.
param n: int = 100 range 1..100000
buffer out: int[n] out zeros
block: 48
grid: ceil(n / block.x)
*/
__global__ void branches(int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int value = 0;
    if (i >= n) return;
    if (i % 3 == 0) {
        value = i * 10;
    } else {
        value = -lane;
    }
    out[i] = value;
}
