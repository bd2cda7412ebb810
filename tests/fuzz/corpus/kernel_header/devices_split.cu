/*@playground
title: Devices seed
param n: int = 1000003
param m: float = 2
buffer x: float[n] in random(seed=1)
buffer c: float[4] in
buffer y: float[n] out
block: 256
grid: ceil(n / block.x)
devices: all over n
devices: 2 over nn
devices: al on n m
*/
extern "C" __global__ void k(const float* x, const float* c, float* y, int n) {}
