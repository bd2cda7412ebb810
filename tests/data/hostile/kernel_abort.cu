/*@playground
title: Aborts the program
buffer out: int[128] out zeros
block: 64
grid: 2
*/
#ifdef __CUDA_PLAYGROUND_CPU__
#include <cstdlib>
#endif
extern "C" __global__ void kernel_abort(int* out)
{
#ifdef __CUDA_PLAYGROUND_CPU__
    if (blockIdx.x == 1 && threadIdx.x == 5) abort();
#endif
    out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}
