/*@playground
title: Includes a file by its absolute path
buffer out: int[64] out zeros
block: 64
grid: 1
*/
#include "@DIR@/home/secret.h"

extern "C" __global__ void absolute_include(int* out) { out[threadIdx.x] = SECRET; }
