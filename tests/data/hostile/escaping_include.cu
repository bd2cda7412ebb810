/*@playground
title: Includes a file outside its folder
buffer out: int[64] out zeros
block: 64
grid: 1
*/
#include "sub/../../home/secret.h"

extern "C" __global__ void escaping_include(int* out) { out[threadIdx.x] = SECRET; }
