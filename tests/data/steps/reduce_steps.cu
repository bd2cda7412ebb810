/*@playground
title: Two-pass reduction (steps test)
param n: int = 20011
param threads: int = 128
param blocks: int = ceil(n / threads)
buffer input: int[n] in ramp(start=3, step=7)
buffer partials: int[blocks] out zeros
buffer total: int[1] out zeros
step: block_partials block=threads grid=blocks shared=block.x * 4
step: final_pass block=256 grid=1 shared=block.x * 4
reference: sums
tolerance: 0
*/
extern "C" __global__ void block_partials(const int* input, int* partials, int n)
{
    extern __shared__ int tree[];
    const int t = threadIdx.x;
    const int i = blockIdx.x * blockDim.x + t;
    tree[t] = i < n ? input[i] : 0;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (t < half) tree[t] += tree[t + half];
        __syncthreads();
    }
    if (t == 0) partials[blockIdx.x] = tree[0];
}

extern "C" __global__ void final_pass(const int* partials, int* total, int blocks)
{
    extern __shared__ int tree[];
    const int t = threadIdx.x;
    int sum = 0;
    for (int i = t; i < blocks; i += blockDim.x) sum += partials[i];
    tree[t] = sum;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (t < half) tree[t] += tree[t + half];
        __syncthreads();
    }
    if (t == 0) total[0] = tree[0];
}

#ifdef PLAYGROUND_REFERENCE
static void sums(const int* input, int* partials, int* total, int n, int threads, int blocks)
{
    long long all = 0;
    for (int b = 0; b < blocks; ++b) {
        long long part = 0;
        for (int i = b * threads; i < (b + 1) * threads && i < n; ++i) part += input[i];
        partials[b] = int(part);
        all += part;
    }
    total[0] = int(all);
}
#endif
