/*@playground
title: CRLF
param n: int = 4
buffer a: float[n] out
grid: 1
*/
extern "C" __global__ void k(float* a, int n) { }
