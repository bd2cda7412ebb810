/*@playground
title: One thread spins
about: Element 300 (thread 44 of block 2) waits for a value no thread writes, so the launch never ends;
  the watchdog stops it and says which thread was still running, and at which line.
param n: int = 1000
buffer y: float[n] out
block: 128
grid: ceil(n / block.x)
*/
// Used by tests/cli/hang_cli_test.cpp: the loop below must stay on its line.
__global__ void spin(float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 300) {
        volatile float* v = y;
        while (v[i] != 5.0f) { }
    }
    if (i < n) y[i] = 1.0f;
}
