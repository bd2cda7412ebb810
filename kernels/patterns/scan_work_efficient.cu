/*@playground
title: Scan, work-efficient, in three steps
category: Parallel patterns
tags: scan, prefix sum, Blelloch, shared memory, steps
about: The complete prefix sum (out[i] = in[0] + ... + in[i]) of an array of any size, in three
  launches. Step 1: every block scans its own segment of 2 × 256 elements in shared memory with the
  work-efficient Blelloch scan (an up-sweep that builds partial sums in a tree, then a down-sweep
  that pushes them back down) and writes its segment's total to `sums`. Step 2: one block scans
  `sums` the same way, turning each segment's total into the sum of all segments before it. Step 3:
  every element adds the offset of its segment. Each element is touched O(1) times: O(n) work in
  total, against O(n log n) for the simpler Hillis-Steele scan. Try: in the Launch panel's list of
  steps pick step 1: `out` becomes a saw-tooth, each segment of 512 starting again from its own
  first value, until step 3 adds the offsets.
param n: int = 200003 range 1..262144
param segments: int = ceil(n / 512)
buffer in: int[n] in random(seed=3, min=0, max=9)
buffer out: int[n] out zeros
buffer sums: int[segments] out zeros
block: 256
step: scan_segments grid=segments shared=2 * block.x * 4
step: scan_sums grid=1 shared=2 * block.x * 4
step: add_offsets grid=ceil(n / block.x)
view out: plot
reference: full_inclusive_scan
tolerance: 0
*/
// Blelloch scan of the 2 * blockDim.x values in shared `tree`: afterwards tree[i] is the sum of the values
// before i (exclusive).
__device__ void block_scan(int* tree)
{
    const int t = threadIdx.x;
    const int size = 2 * blockDim.x;
    for (int stride = 1; stride < size; stride *= 2) {  // up-sweep
        __syncthreads();
        int i = (t + 1) * stride * 2 - 1;
        if (i < size) tree[i] += tree[i - stride];
    }
    __syncthreads();
    if (t == 0) tree[size - 1] = 0;
    for (int stride = size / 2; stride > 0; stride /= 2) {  // down-sweep: exclusive prefixes
        __syncthreads();
        int i = (t + 1) * stride * 2 - 1;
        if (i < size) {
            int left = tree[i - stride];
            tree[i - stride] = tree[i];
            tree[i] += left;
        }
    }
    __syncthreads();
}

extern "C" __global__ void scan_segments(const int* in, int* out, int* sums, int n, int segments)
{
    extern __shared__ int tree[];
    const int t = threadIdx.x;
    const int base = blockIdx.x * 2 * blockDim.x;
    int a = base + 2 * t < n ? in[base + 2 * t] : 0;
    int b = base + 2 * t + 1 < n ? in[base + 2 * t + 1] : 0;
    tree[2 * t] = a;
    tree[2 * t + 1] = b;
    block_scan(tree);
    // tree holds exclusive prefixes; add each element back for the inclusive scan.
    if (base + 2 * t < n) out[base + 2 * t] = tree[2 * t] + a;
    if (base + 2 * t + 1 < n) out[base + 2 * t + 1] = tree[2 * t + 1] + b;
    if (t == blockDim.x - 1 && blockIdx.x < segments) sums[blockIdx.x] = tree[2 * t + 1] + b;
}

extern "C" __global__ void scan_sums(int* sums, int segments)
{
    extern __shared__ int tree[];
    const int t = threadIdx.x;
    tree[2 * t] = 2 * t < segments ? sums[2 * t] : 0;
    tree[2 * t + 1] = 2 * t + 1 < segments ? sums[2 * t + 1] : 0;
    block_scan(tree);
    // Exclusive: sums[s] becomes the total of the segments before s.
    if (2 * t < segments) sums[2 * t] = tree[2 * t];
    if (2 * t + 1 < segments) sums[2 * t + 1] = tree[2 * t + 1];
}

extern "C" __global__ void add_offsets(int* out, const int* sums, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] += sums[i / 512];
}

#ifdef PLAYGROUND_REFERENCE
static void full_inclusive_scan(const int* in, int* out, int* sums, int n, int segments)
{
    int sum = 0;
    for (int i = 0; i < n; ++i) {
        if (i % 512 == 0) sums[i / 512] = sum;  // after step 2: the total before each segment
        sum += in[i];
        out[i] = sum;
    }
    (void)segments;
}
#endif
