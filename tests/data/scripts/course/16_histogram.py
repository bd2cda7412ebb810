"""Lesson 16: a 256-bin histogram with atomics.

Many threads hit the same bin at once, so the increments must be atomic.
To keep contention on global memory low, each block first builds its own
histogram in shared memory, then adds it to the global one: 256 global
atomics per block instead of one per input value.
"""
import sys

import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
from pycuda.compiler import SourceModule

mod = SourceModule("""
#define BINS 256

__global__ void histogram256(const unsigned char *data, unsigned int *hist, int n)
{
    __shared__ unsigned int local[BINS];

    // 1. Clear the block's histogram (works for any block size).
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        local[b] = 0;
    __syncthreads();

    // 2. Grid-stride loop: a fixed number of threads covers any n.
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();

    // 3. Merge into the global histogram.
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        atomicAdd(&hist[b], local[b]);
}
""")
histogram256 = mod.get_function("histogram256")

n = 1000003
rng = np.random.default_rng(16)
data = rng.integers(0, 256, size=n, dtype=np.uint8)

# The kernel adds to hist, so it must start at zero on the device:
# InOut copies our zeros in (and the result back out).
hist = np.zeros(256, dtype=np.uint32)
histogram256(drv.In(data), drv.InOut(hist), np.int32(n),
             block=(256, 1, 1), grid=(64, 1))

expected = np.bincount(data, minlength=256).astype(np.uint32)
print("total counted: %d of %d, fullest bin: %d" % (hist.sum(), n, hist.argmax()))
ok = bool(np.array_equal(hist, expected))
print("check:", ok)
sys.exit(0 if ok else 1)
