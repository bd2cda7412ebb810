/*@playground
title: Matrix multiply, register-blocked (128×128 tiles, 8×8 per thread)
category: Matrices
tags: matrix multiply, shared memory, registers, tiling, performance
about: The step after shared-memory tiling: each block of 256 threads computes a 128×128 tile of C,
  and each thread an 8×8 sub-tile held in 64 registers. For every k, a thread reads 8 values of A and
  8 of B from shared memory (as float4s) and does 64 multiply-adds with them, so each shared-memory
  load feeds 8 FMAs instead of 1. A's tile is stored transposed (As[k][row]) so both tiles are read
  along rows. Two more tricks hide memory latency: while a block computes with one pair of tiles, it
  already loads the next k slice from global memory into registers (double buffering, two tile pairs
  in shared memory), and where the sizes are multiples of 4 every load and store moves a float4.
  `__launch_bounds__(256, 2)` asks the compiler to fit two blocks per SM (at most 128 registers per
  thread; without it, it takes 169 and one block fits). Loads past the edges read zeros, so any m, n,
  k work. The block must be 256 threads. Try: set
  m = n = k = 2048 and compare the time with the tiled multiply (the bench compares it with cuBLAS at
  4096); then set k = 2047 and see what losing the float4 loads costs.
param m: int = 300 range 1..8192
param n: int = 250 range 1..8192
param k: int = 200 range 1..8192
buffer a: float[m * k] in random(seed=3, min=-1, max=1)
buffer b: float[k * n] in random(seed=4, min=-1, max=1)
buffer c: float[m * n] out zeros
block: 256
grid: ceil(n / 128) x ceil(m / 128)
view c: image(n, m) colormap=coolwarm
reference: matmul_loops
tolerance: 1e-3
*/
#define BM 128     // rows of C per block
#define BN 128     // columns of C per block
#define BK 16      // k per shared-memory tile
#define THREADS 256
// Thread (tx, ty) of a 16 x 16 block owns rows ty*4..ty*4+3 and 64+ty*4..64+ty*4+3 of the tile, and
// columns tx*4..tx*4+3 and 64+tx*4..64+tx*4+3: two float4s of A and two of B per k.

struct Staged {  // the next k slice, on its way from global memory to shared memory
    float4 a[2], b[2];
};

// A: 128 rows x 16 k = 512 float4s, two per thread (rows tid/4 and tid/4 + 64, k quad tid%4).
// B: 16 k x 128 columns = 512 float4s, two per thread (k rows tid/32 and tid/32 + 8, column quad tid%32).
__device__ void load_slice(Staged& s, const float* a, const float* b, int m, int n, int k, int row0, int col0,
                           int k0, bool vec, int tid)
{
    for (int h = 0; h < 2; ++h) {
        const int r = row0 + tid / 4 + h * 64, kk = k0 + (tid % 4) * 4;
        if (vec && r < m && kk + 3 < k) {
            s.a[h] = *reinterpret_cast<const float4*>(a + (long)r * k + kk);
        } else {
            const float* p = a + (long)r * k;
            s.a[h].x = (r < m && kk + 0 < k) ? p[kk + 0] : 0.0f;
            s.a[h].y = (r < m && kk + 1 < k) ? p[kk + 1] : 0.0f;
            s.a[h].z = (r < m && kk + 2 < k) ? p[kk + 2] : 0.0f;
            s.a[h].w = (r < m && kk + 3 < k) ? p[kk + 3] : 0.0f;
        }
    }
    for (int h = 0; h < 2; ++h) {
        const int kk = k0 + tid / 32 + h * 8, col = col0 + (tid % 32) * 4;
        if (vec && kk < k && col + 3 < n) {
            s.b[h] = *reinterpret_cast<const float4*>(b + (long)kk * n + col);
        } else {
            const float* p = b + (long)kk * n;
            s.b[h].x = (kk < k && col + 0 < n) ? p[col + 0] : 0.0f;
            s.b[h].y = (kk < k && col + 1 < n) ? p[col + 1] : 0.0f;
            s.b[h].z = (kk < k && col + 2 < n) ? p[col + 2] : 0.0f;
            s.b[h].w = (kk < k && col + 3 < n) ? p[col + 3] : 0.0f;
        }
    }
}

__device__ void store_slice(const Staged& s, float (*As)[BM], float (*Bs)[BN], int tid)
{
    for (int h = 0; h < 2; ++h) {
        const int r = tid / 4 + h * 64, kq = (tid % 4) * 4;
        As[kq + 0][r] = s.a[h].x;  // transposed: As[k][row]
        As[kq + 1][r] = s.a[h].y;
        As[kq + 2][r] = s.a[h].z;
        As[kq + 3][r] = s.a[h].w;
    }
    for (int h = 0; h < 2; ++h)
        *reinterpret_cast<float4*>(&Bs[tid / 32 + h * 8][(tid % 32) * 4]) = s.b[h];
}

extern "C" __global__ void __launch_bounds__(THREADS, 2)
matmul_register_blocked(const float* a, const float* b, float* c, int m, int n, int k)
{
    __shared__ __align__(16) float As[2][BK][BM];
    __shared__ __align__(16) float Bs[2][BK][BN];
    const int tid = threadIdx.x;
    const int tx = tid % 16, ty = tid / 16;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const bool vec = (k % 4 == 0) && (n % 4 == 0);  // every float4 is 16-byte aligned

    float acc[8][8];
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

    Staged next;
    load_slice(next, a, b, m, n, k, row0, col0, 0, vec, tid);
    store_slice(next, As[0], Bs[0], tid);
    __syncthreads();
    int buf = 0;
    for (int k0 = 0; k0 < k; k0 += BK) {
        const bool more = k0 + BK < k;
        if (more) load_slice(next, a, b, m, n, k, row0, col0, k0 + BK, vec, tid);  // in flight while we compute
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            const float4 a0 = *reinterpret_cast<const float4*>(&As[buf][kk][ty * 4]);
            const float4 a1 = *reinterpret_cast<const float4*>(&As[buf][kk][64 + ty * 4]);
            const float4 b0 = *reinterpret_cast<const float4*>(&Bs[buf][kk][tx * 4]);
            const float4 b1 = *reinterpret_cast<const float4*>(&Bs[buf][kk][64 + tx * 4]);
            const float ra[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float rb[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] += ra[i] * rb[j];
        }
        // The other pair of tiles was last read before the previous barrier: safe to fill now.
        if (more) store_slice(next, As[buf ^ 1], Bs[buf ^ 1], tid);
        __syncthreads();
        buf ^= 1;
    }
    for (int i = 0; i < 8; ++i) {
        const int row = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
        if (row >= m) continue;
        for (int half = 0; half < 2; ++half) {
            const int col = col0 + half * 64 + tx * 4;
            const float* v = &acc[i][half * 4];
            if (vec && col + 3 < n) {
                *reinterpret_cast<float4*>(c + (long)row * n + col) = make_float4(v[0], v[1], v[2], v[3]);
            } else {
                for (int j = 0; j < 4; ++j)
                    if (col + j < n) c[(long)row * n + col + j] = v[j];
            }
        }
    }
}

#ifdef PLAYGROUND_REFERENCE
static void matmul_loops(const float* a, const float* b, float* c, int m, int n, int k)
{
    for (int row = 0; row < m; ++row)
        for (int col = 0; col < n; ++col) {
            double sum = 0;
            for (int i = 0; i < k; ++i) sum += double(a[(long)row * k + i]) * b[(long)i * n + col];
            c[(long)row * n + col] = float(sum);
        }
}
#endif
