/*@playground
title: Writes a file
buffer out: int[64] out zeros
block: 64
grid: 1
*/
#ifdef __CUDA_PLAYGROUND_CPU__
#include <cstdio>
#endif
extern "C" __global__ void write_file(int* out)
{
#ifdef __CUDA_PLAYGROUND_CPU__
    if (threadIdx.x == 2) {
        FILE* f = fopen("@DIR@/written", "w");
        if (f) {
            fputs("pwned", f);
            fclose(f);
        }
    }
#endif
    out[threadIdx.x] = 1;
}
