/*@playground
title: Starts a program
buffer out: int[100] out zeros
block: 64
grid: 2
*/
#ifdef __CUDA_PLAYGROUND_CPU__
#include <cstdlib>
#endif
extern "C" __global__ void start_program(int* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
#ifdef __CUDA_PLAYGROUND_CPU__
    if (i == 67) system("touch @DIR@/started");
#endif
    if (i < 100) out[i] = i;
}
