/*@playground
title: Warp divergence
category: Performance
tags: divergence, branches, active lanes, SIMT, memory figures
about: A warp's 32 threads run one instruction at a time together. When they disagree on a branch, the warp runs
  both sides one after the other, each time with only the lanes that took that side switched on: the others
  wait. Here threads with threadIdx.x % k == 0 take branch A (read a, iterate one formula `work` times) and
  the others branch B (read b, iterate another); after the branch every lane writes its result. With k = 1
  every lane takes A and B never runs; with k = 2 half the lanes take each side, so each side runs with 16 of
  32 lanes active and the warp pays for both (on a GPU the Timing panel shows up to twice the time of k = 1,
  when the branches' work outweighs the memory traffic); with k = 32 one lane takes A and 31 take B, and A
  still costs the whole warp its full time. Turn on the memory figures (Memory panel, or `run --memory`): the
  load in A shows 32/k lanes active per request, the load in B the other 32 - 32/k, and the store after the
  branch all 32 again (the warp reconverged). Divergence also wastes memory: A's lanes read every k-th float,
  so its requests touch more 32-byte sectors than the bytes they use need. The output shows the pattern: A's
  elements end near 0.25, B's near 0.75. Try: k = 1, 2, 4, 8, 32, and compare the times on a GPU; set work to
  0 and the branches cost next to nothing: divergence hurts when the branches do real work.
param n: int = 250007 range 1..16777216
param k: int = 2 range 1..32
param work: int = 256 range 0..4096
buffer a: float[n] in random(seed=29, min=0, max=1)
buffer b: float[n] in random(seed=31, min=0, max=1)
buffer y: float[n] out zeros
block: 256
grid: ceil(n / block.x)
problem: n
view y: plot range=0..1
reference: divergence_reference
tolerance: 1e-6
show: Memory, Timing
*/
extern "C" __global__ void warp_divergence(const float* a, const float* b, float* y, int n, int k, int work)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v;
    if (threadIdx.x % k == 0) {
        v = a[i];  // branch A: the lanes with threadIdx.x % k == 0
        for (int r = 0; r < work; ++r) v = v * 0.5f + 0.125f;  // heads for 0.25
    } else {
        v = b[i];  // branch B: the other lanes
        for (int r = 0; r < work; ++r) v = v * 0.5f + 0.375f;  // heads for 0.75
    }
    y[i] = v;  // after the branch: the lanes of both sides together again
}

#ifdef PLAYGROUND_REFERENCE
static void divergence_reference(const float* a, const float* b, float* y, int n, int k, int work)
{
    for (int i = 0; i < n; ++i) {
        const bool take_a = (i % 256) % k == 0;  // threadIdx.x = i % 256 with blocks of 256
        float v = take_a ? a[i] : b[i];
        for (int r = 0; r < work; ++r) v = take_a ? v * 0.5f + 0.125f : v * 0.5f + 0.375f;
        y[i] = v;
    }
}
#endif
