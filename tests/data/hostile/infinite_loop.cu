/*@playground
title: Never finishes
buffer out: int[64] out zeros
block: 64
grid: 1
*/
extern "C" __global__ void infinite_loop(int* out)
{
    volatile int forever = 1;
    while (forever) out[threadIdx.x] += 1;
}
