/*@playground
title: Replaces itself with a program
buffer out: int[64] out zeros
block: 64
grid: 1
*/
#ifdef __CUDA_PLAYGROUND_CPU__
#include <unistd.h>
#endif
extern "C" __global__ void exec_program(int* out)
{
#ifdef __CUDA_PLAYGROUND_CPU__
    if (threadIdx.x == 0) execl("/bin/sh", "sh", "-c", "touch @DIR@/executed", (char*)nullptr);
#endif
    out[threadIdx.x] = 1;
}
