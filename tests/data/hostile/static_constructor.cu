/*@playground
title: Starts a program while loading
buffer out: int[64] out zeros
block: 64
grid: 1
*/
#ifdef __CUDA_PLAYGROUND_CPU__
#include <cstdlib>
struct AtLoad {
    AtLoad() { system("touch @DIR@/started_at_load"); }
};
static AtLoad at_load;
#endif
extern "C" __global__ void static_constructor(int* out) { out[threadIdx.x] = 1; }
