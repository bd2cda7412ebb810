/*@playground
title: Includes a file named by a macro
buffer out: uchar[64] out zeros
block: 1
grid: 1
*/
#define STOLEN "@DIR@/home/secret.h"
#include STOLEN

extern "C" __global__ void computed_include(unsigned char* out) { out[0] = SECRET; }
