/*@playground
title: Reads a file it was not given
buffer out: uchar[64] out zeros
block: 32
grid: 1
*/
#ifdef __CUDA_PLAYGROUND_CPU__
#include <cstdio>
#endif
extern "C" __global__ void read_secret(unsigned char* out)
{
#ifdef __CUDA_PLAYGROUND_CPU__
    if (threadIdx.x == 0) {
        FILE* f = fopen("@DIR@/home/secret.txt", "r");
        if (f) {
            fread(out, 1, 63, f);
            fclose(f);
        }
    }
#endif
}
