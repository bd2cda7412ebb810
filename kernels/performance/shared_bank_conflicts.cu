/*@playground
title: Shared-memory bank conflicts
category: Performance
tags: shared memory, bank conflicts, broadcast, stride, memory figures
about: Shared memory is split into 32 banks, each 4 bytes wide: word w sits in bank w mod 32, and each
  bank delivers one word per cycle. A warp's 32 accesses are served together when they fall in 32
  different banks; when several lanes want different words of the same bank, the bank serves them one
  after another (a bank conflict: a 4-way conflict takes 4 passes). Here each thread exchanges its
  element with its neighbour through shared memory: it stores it at word threadIdx.x × stride and reads
  the neighbour's word back. With stride 1 the lanes use 32 different banks; with stride 2 lanes 0 and
  16 share bank 0 (2-way), with stride 4 four lanes share each bank (4-way), ... and with stride 32 all
  32 lanes hit bank 0 (32-way). Any odd stride (33 too) spreads the lanes over all 32 banks again, which
  is why a 32×32 tile gets one float of padding per row. Lanes reading the very same word do not conflict:
  the bank reads it once and broadcasts it (set broadcast to on: every thread reads thread 0's word).
  Turn on the memory figures (Memory panel, or `run --memory`): the store and load lines count the bank
  conflicts, the extra passes per request: N - 1 for an N-way conflict (1 at stride 2, 31 at stride 32).
  Try: stride 1, 2, 4, 8, 16, 32, then 31 and 33; then broadcast on at stride 32.
param n: int = 100003 range 1..16777216
param stride: int = 1 range 1..33
param broadcast: int = off enum off=0 on=1
buffer in: float[n] in random(seed=23, min=0, max=1)
buffer out: float[n] out zeros
block: 256
grid: ceil(n / block.x)
problem: n
view out: plot
reference: exchange_reference
tolerance: 0
show: Memory
*/
#define BLOCK 256       // threads per block, as the header's `block:` says
#define MAX_STRIDE 33   // the slider's largest stride: room for BLOCK threads that far apart

extern "C" __global__ void shared_bank_conflicts(const float* in, float* out, int n, int stride, int broadcast)
{
    // Word threadIdx.x * stride of this block's shared memory: bank (threadIdx.x * stride) % 32.
    __shared__ float words[BLOCK * MAX_STRIDE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // Threads past n still take part (they store a 0), so that every warp is whole at the barrier.
    words[threadIdx.x * stride] = i < n ? in[i] : 0.0f;  // store: stride words apart
    __syncthreads();
    // The neighbour's word (lanes 0 and 1 swap, 2 and 3...), or with broadcast thread 0's, the same word for all.
    int from = broadcast ? 0 : (threadIdx.x ^ 1);
    if (i < n) out[i] = words[from * stride];  // load: the same banks as the store, or one word for the warp
}

#ifdef PLAYGROUND_REFERENCE
static void exchange_reference(const float* in, float* out, int n, int broadcast)
{
    for (long long i = 0; i < n; ++i) {
        const long long block_start = i / 256 * 256;
        const long long from = broadcast ? block_start : (i ^ 1);  // i ^ 1 stays in i's block (256 is even)
        out[i] = from < n ? in[from] : 0.0f;
    }
}
#endif
