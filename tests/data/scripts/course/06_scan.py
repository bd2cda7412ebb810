"""Lesson 6: inclusive prefix sum (scan) of 10000 integers.

Step 1: every block of 256 scans its own piece (Hillis-Steele in shared
        memory) and writes its total to block_sums.
Step 2: the same kernel, run as a single block, scans block_sums.
Step 3: every block b > 0 adds the scanned total of blocks 0..b-1.
"""
import sys

import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
from pycuda.compiler import SourceModule

mod = SourceModule("""
#define BLOCK 256

__global__ void scan_blocks(const int *in, int *out, int *block_sums, int n)
{
    __shared__ int temp[BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * BLOCK + tid;

    temp[tid] = (i < n) ? in[i] : 0;
    __syncthreads();

    // Hillis-Steele: at step k every element adds the one 2^k before it.
    for (int offset = 1; offset < BLOCK; offset *= 2) {
        int v = (tid >= offset) ? temp[tid - offset] : 0;
        __syncthreads();          // all reads before any write
        temp[tid] += v;
        __syncthreads();
    }

    if (i < n)
        out[i] = temp[tid];
    if (block_sums != 0 && tid == BLOCK - 1)
        block_sums[blockIdx.x] = temp[tid];   // the block's total
}

__global__ void add_block_offsets(int *out, const int *scanned_sums, int n)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (blockIdx.x > 0 && i < n)
        out[i] += scanned_sums[blockIdx.x - 1];
}
""")
scan_blocks = mod.get_function("scan_blocks")
add_block_offsets = mod.get_function("add_block_offsets")

n = 10000
BLOCK = 256
blocks = (n + BLOCK - 1) // BLOCK          # 40 blocks; the last is partial
rng = np.random.default_rng(6)
data = rng.integers(0, 10, size=n).astype(np.int32)

d_in = drv.mem_alloc(data.nbytes)
d_out = drv.mem_alloc(data.nbytes)
d_sums = drv.mem_alloc(blocks * 4)
d_scanned_sums = drv.mem_alloc(blocks * 4)
drv.memcpy_htod(d_in, data)

# Step 1: scan inside each block.
scan_blocks(d_in, d_out, d_sums, np.int32(n), block=(BLOCK, 1, 1), grid=(blocks, 1))
# Step 2: scan the 40 block totals with one block (NULL: no totals of its own).
scan_blocks(d_sums, d_scanned_sums, np.intp(0), np.int32(blocks),
            block=(BLOCK, 1, 1), grid=(1, 1))
# Step 3: add the offsets.
add_block_offsets(d_out, d_scanned_sums, np.int32(n), block=(BLOCK, 1, 1), grid=(blocks, 1))

result = np.empty_like(data)
drv.memcpy_dtoh(result, d_out)

expected = np.cumsum(data, dtype=np.int32)
print("last values:", result[-3:], "expected:", expected[-3:])
ok = bool(np.array_equal(result, expected))
print("check:", ok)
sys.exit(0 if ok else 1)
