/*@playground
title: Coalesced vs strided access
category: Performance
tags: coalescing, memory bandwidth, stride
about: A warp's 32 loads are served together when they fall in the same few 32-byte segments
  (coalesced). Here thread i reads x[(i × stride) mod n]: with stride 1 neighbouring threads read
  neighbouring floats and each segment serves 8 threads; with stride 8 or more every thread needs a
  segment of its own, so the memory system moves up to 8 times the bytes the kernel uses. The writes
  stay contiguous. The Timing panel's bandwidth (bytes the kernel uses per second) and its history
  plot show the cost as you move the slider. Try: stride 1, 2, 4, 8, 16, 32, and note the bandwidth
  at each (the history plot keeps them). On the CPU backend a warp's loads are not served together, so
  the stride costs far less there: only a GPU shows the effect. The memory figures (Memory panel, or
  `run --memory`, on either backend) show why: the load line's sectors per request go from 4 (ideal 4)
  at stride 1 to 8, 16 and 32 at strides 2, 4 and 8 and stay at 32 beyond; the store line stays at 4.
  At the default n the recording keeps only the first blocks (it stops at 4,194,304 accesses), whose
  figures per request are those of the whole launch; set n to 2000000 or less to record every block.
param n: int = 16777213 range 1..67108864
param stride: int = 1 range 1..64
buffer x: float[n] in random(seed=8, min=0, max=1)
buffer y: float[n] out zeros
block: 256
grid: ceil(n / block.x)
problem: n
traffic: 2 * n * 4
view y: plot
reference: strided_gather
tolerance: 0
show: Memory, Timing
*/
extern "C" __global__ void coalesced_vs_strided(const float* x, float* y, int n, int stride)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[(long long)i * stride % n];
    }
}

#ifdef PLAYGROUND_REFERENCE
static void strided_gather(const float* x, float* y, int n, int stride)
{
    for (long long i = 0; i < n; ++i) y[i] = x[i * stride % n];
}
#endif
