/*@playground
title: Shared memory basics: a moving average with a halo
category: Memory
tags: shared memory, __syncthreads, stencil, halo
about: out[i] is the average of the 2·R+1 inputs around i (R = 3, zeros past the ends). Read straight
  from global memory, each input is loaded 7 times by 7 different threads. Here each block first
  copies its part of the input, plus R elements on each side (the halo), into shared memory, a small
  fast memory that all threads of a block share; __syncthreads() waits until the whole tile is
  there; then every thread reads its 7 inputs from the tile. Global memory is read about once per
  element. Try: remove the __syncthreads() and run with CUDA_PLAYGROUND_CPU_ORDER=reversed to see
  threads read parts of the tile nobody has written yet.
param n: int = 1000003 range 1..67108864
buffer in: float[n] in random(seed=12, min=0, max=1)
buffer out: float[n] out zeros
block: 256
grid: ceil(n / block.x)
shared: (block.x + 6) * 4
problem: n
view out: plot
reference: moving_average
tolerance: 1e-5
*/
#define R 3

extern "C" __global__ void shared_memory_basics(const float* in, float* out, int n)
{
    extern __shared__ float tile[];  // blockDim.x + 2R floats
    const int t = threadIdx.x;
    const int i = blockIdx.x * blockDim.x + t;
    tile[t + R] = i < n ? in[i] : 0.0f;
    if (t < R) {
        const int left = i - R;                 // the R elements before the block
        const int right = i + blockDim.x;       // and the R after it
        tile[t] = left >= 0 && left < n ? in[left] : 0.0f;
        tile[t + R + blockDim.x] = right < n ? in[right] : 0.0f;
    }
    __syncthreads();
    if (i < n) {
        float sum = 0.0f;
        for (int d = -R; d <= R; ++d) sum += tile[t + R + d];
        out[i] = sum / (2 * R + 1);
    }
}

#ifdef PLAYGROUND_REFERENCE
static void moving_average(const float* in, float* out, int n)
{
    const int r = 3;
    for (int i = 0; i < n; ++i) {
        float sum = 0;
        for (int d = -r; d <= r; ++d) sum += (i + d >= 0 && i + d < n) ? in[i + d] : 0.0f;
        out[i] = sum / (2 * r + 1);
    }
}
#endif
