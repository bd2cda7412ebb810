/*@playground
title: A write past the end of its buffer (the debugger's tests)
about: Each thread doubles its element, but the bound check compares with the wrong size: the last
  block's threads past n write beyond the output.
param n: int = 70 range 1..100000
buffer in: float[n] in ramp(start=1, step=0.5)
buffer out: float[n] out zeros
block: 32
grid: ceil(n / block.x)
*/
__global__ void doubled(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = 0.0f;
    if (i < n) x = in[i];
    float twice = 2.0f * x;
    if (i < n + 40) out[i] = twice;
}
