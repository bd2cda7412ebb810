/*@playground
title: Scan, half done: the up-sweep alone (buggy on purpose)
category: Parallel patterns
tags: scan, prefix sum, Blelloch, shared memory, buggy on purpose
about: A prefix sum (scan) gives out[i] = in[0] + ... + in[i]. The work-efficient (Blelloch) scan has
  two phases over a tree in shared memory: the up-sweep adds pairs at distances 1, 2, 4, ... so that
  the last element ends up with the total, and the down-sweep pushes partial sums back down the
  tree. This kernel stops after the up-sweep: only some elements (every second one partly, the last
  fully) hold the right prefix, and the check shows where it first goes wrong. One block of 1024
  threads scans up to 2048 elements, two per thread. Try: plot both this output and the next
  lesson's, and find the elements that are right here.
param n: int = 1500 range 1..2048
buffer in: int[n] in random(seed=3, min=0, max=9)
buffer out: int[n] out zeros
block: 1024
grid: 1
shared: 2 * block.x * 4
problem: ceil(n / 2)
view out: plot
reference: inclusive_scan
expect: mismatch
learn: the up-sweep alone leaves only some prefixes right; the down-sweep is what
  completes the scan (the next lesson has it)
tolerance: 0
*/
extern "C" __global__ void scan_upsweep_only(const int* in, int* out, int n)
{
    extern __shared__ int tree[];
    const int t = threadIdx.x;
    const int segment = 2 * blockDim.x;
    const int base = 0;  // one block
    tree[2 * t] = base + 2 * t < n ? in[base + 2 * t] : 0;
    tree[2 * t + 1] = base + 2 * t + 1 < n ? in[base + 2 * t + 1] : 0;

    // Up-sweep (reduce): after it, tree[segment - 1] is the segment's total.
    for (int stride = 1; stride < segment; stride *= 2) {
        __syncthreads();
        int i = (t + 1) * stride * 2 - 1;
        if (i < segment) tree[i] += tree[i - stride];
    }
    __syncthreads();
    // Missing: the down-sweep that turns the partial sums into every prefix.
    if (base + 2 * t < n) out[base + 2 * t] = tree[2 * t];
    if (base + 2 * t + 1 < n) out[base + 2 * t + 1] = tree[2 * t + 1];
}

#ifdef PLAYGROUND_REFERENCE
// The whole array's inclusive prefix sums: what a complete scan gives.
static void inclusive_scan(const int* in, int* out, int n)
{
    int sum = 0;
    for (int i = 0; i < n; ++i) {
        sum += in[i];
        out[i] = sum;
    }
}
#endif
