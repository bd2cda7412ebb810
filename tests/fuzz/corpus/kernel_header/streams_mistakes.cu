/*@playground
title: Bad streams
param n: int = 10
buffer y: float[n] out
streams: 0 over
streams: 4 over n chunks=
streams: (2 over n
streams: 3 over n chunks=2 chunks=9 x
*/
extern "C" __global__ void k(float* y, int n) { }
