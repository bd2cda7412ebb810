/*@playground
title: Constant memory: filter coefficients every thread reads
category: Memory
tags: constant memory, __constant__, broadcast, convolution
about: `__constant__` memory is a small (64 KiB) read-only space with its own cache, built for values
  that every thread of a warp reads at the same address at the same time: one read is broadcast to
  all 32 threads. Filter coefficients are the classic case. This kernel convolves a signal with a
  9-tap filter whose weights live in constant memory. In a CUDA program the host sets them with
  cudaMemcpyToSymbol before the launch; here they are written in the source. Try: change the weights
  (keep their sum 1) in `weights` and in the reference's copy at the end, and watch the smoothing
  change.
param n: int = 100003 range 9..16777216
buffer in: float[n] in random(seed=14, min=-1, max=1)
buffer out: float[n] out zeros
block: 256
grid: ceil(n / block.x)
problem: n
view out: plot
reference: convolve9
tolerance: 1e-5
*/
#define TAPS 9

__constant__ float weights[TAPS] = {0.02f, 0.05f, 0.12f, 0.2f, 0.22f, 0.2f, 0.12f, 0.05f, 0.02f};

extern "C" __global__ void constant_memory(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float sum = 0.0f;
        for (int t = 0; t < TAPS; ++t) {
            int j = min(max(i + t - TAPS / 2, 0), n - 1);
            sum += weights[t] * in[j];  // every thread of the warp reads weights[t]: one broadcast
        }
        out[i] = sum;
    }
}

#ifdef PLAYGROUND_REFERENCE
// The reference cannot see the kernel's half of the file: the same weights, written again.
static void convolve9(const float* in, float* out, int n)
{
    const float w[9] = {0.02f, 0.05f, 0.12f, 0.2f, 0.22f, 0.2f, 0.12f, 0.05f, 0.02f};
    for (int i = 0; i < n; ++i) {
        float sum = 0;
        for (int t = 0; t < 9; ++t) {
            int j = i + t - 4;
            j = j < 0 ? 0 : (j > n - 1 ? n - 1 : j);
            sum += w[t] * in[j];
        }
        out[i] = sum;
    }
}
#endif
