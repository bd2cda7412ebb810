/*@playground
title: Scan, then add block offsets (steps test)
param n: int = 70001
param segments: int = ceil(n / 256)
buffer in: int[n] in ramp(start=5, step=3)
buffer out: int[n] out zeros
buffer offsets: int[segments] out zeros
block: 128
step: scan_segments grid=segments shared=2 * 256 * 4
step: scan_offsets grid=1 block=256 shared=4 * block.x * 4
step: add_offsets grid=ceil(n / block.x)
reference: scan_reference
tolerance: 0
*/
// Hillis-Steele inclusive scan of 2 * blockDim.x values in shared memory (double-buffered).
__device__ int* block_scan(int* a, int* b, int size)
{
    for (int stride = 1; stride < size; stride *= 2) {
        __syncthreads();
        for (int i = threadIdx.x; i < size; i += blockDim.x) b[i] = i >= stride ? a[i] + a[i - stride] : a[i];
        int* t = a;
        a = b;
        b = t;
    }
    __syncthreads();
    return a;
}

// Each segment of 256 elements scanned alone; its total goes to offsets[segment].
extern "C" __global__ void scan_segments(const int* in, int* out, int* offsets, int n)
{
    extern __shared__ int buf[];
    const int base = blockIdx.x * 256;
    for (int i = threadIdx.x; i < 256; i += blockDim.x) buf[i] = base + i < n ? in[base + i] : 0;
    int* scanned = block_scan(buf, buf + 256, 256);
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        if (base + i < n) out[base + i] = scanned[i];
    if (threadIdx.x == 0) offsets[blockIdx.x] = scanned[255];
}

// One block: the segments' totals become exclusive offsets (the sum of every segment before).
extern "C" __global__ void scan_offsets(int* offsets, int segments)
{
    extern __shared__ int buf[];
    const int size = 2 * blockDim.x;
    for (int i = threadIdx.x; i < size; i += blockDim.x) buf[i] = i < segments ? offsets[i] : 0;
    int* scanned = block_scan(buf, buf + size, size);
    for (int i = threadIdx.x; i < segments; i += blockDim.x) offsets[i] = i == 0 ? 0 : scanned[i - 1];
}

extern "C" __global__ void add_offsets(int* out, const int* offsets, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] += offsets[i / 256];
}

#ifdef PLAYGROUND_REFERENCE
static void scan_reference(const int* in, int* out, int* offsets, int n)
{
    long long sum = 0;
    for (int i = 0; i < n; ++i) {
        if (i % 256 == 0) offsets[i / 256] = int(sum);
        sum += in[i];
        out[i] = int(sum);
    }
}
#endif
