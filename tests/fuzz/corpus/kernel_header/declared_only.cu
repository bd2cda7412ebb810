/*@playground
title: declared only
*/
__global__ void k(float* a);
#define X __global__ void m() {
