"""Lesson 5: parallel reduction (sum) in shared memory.

Each block adds up 2 * blockDim.x input values with a tree in shared
memory and writes one partial sum. The few thousand partial sums are
then added on the host.
"""
import sys

import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
from pycuda.compiler import SourceModule

mod = SourceModule("""
__global__ void block_sum(const float *x, float *partial, int n)
{
    // Size given at launch time with the shared= argument.
    extern __shared__ float sdata[];

    int tid = threadIdx.x;
    int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;

    // Each thread loads (up to) two values; missing ones count as 0.
    float v = 0.0f;
    if (i < n)
        v = x[i];
    if (i + blockDim.x < n)
        v += x[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();

    // Tree: halve the number of active threads at every step.
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();   // everyone must finish this level first
    }

    if (tid == 0)
        partial[blockIdx.x] = sdata[0];
}
""")
block_sum = mod.get_function("block_sum")

n = 1000003
rng = np.random.default_rng(5)
x = rng.random(n).astype(np.float32)

threads = 256                                # must be a power of two
per_block = 2 * threads
blocks = (n + per_block - 1) // per_block    # 1954 blocks
partial = np.zeros(blocks, dtype=np.float32)

block_sum(drv.In(x), drv.Out(partial), np.int32(n),
          block=(threads, 1, 1), grid=(blocks, 1),
          shared=threads * np.dtype(np.float32).itemsize)

# Finish on the host, in double precision.
gpu_total = float(np.sum(partial, dtype=np.float64))
cpu_total = float(np.sum(x, dtype=np.float64))
print("blocks: %d  gpu sum: %.4f  numpy sum: %.4f" % (blocks, gpu_total, cpu_total))

# Floating-point addition is not associative: compare with a tolerance.
ok = bool(np.isclose(gpu_total, cpu_total, rtol=1e-5))
print("check:", ok)
sys.exit(0 if ok else 1)
