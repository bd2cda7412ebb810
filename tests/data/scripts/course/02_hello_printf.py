"""Lesson 2: hello from the GPU.

Every thread prints its own coordinates with printf, which shows how a
launch is split into blocks and threads. Then each thread computes its
global index squared, and we check that on the host.
"""
import sys

import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
from pycuda.compiler import SourceModule

# Note the doubled backslash: Python would otherwise turn \n into a real
# newline inside the C string literal, which does not compile.
mod = SourceModule("""
#include <stdio.h>

__global__ void hello(void)
{
    printf("Hello from thread %d, block %d\\n", threadIdx.x, blockIdx.x);
}

__global__ void global_index_squared(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i * i;
}
""")
hello = mod.get_function("hello")
squares = mod.get_function("global_index_squared")

# 2 blocks of 4 threads = 8 greetings (in no guaranteed order).
hello(block=(4, 1, 1), grid=(2, 1))
drv.Context.synchronize()   # wait, so the GPU's printf buffer is flushed

# Same grid shape, now with a real result: 2 * 4 = 8 threads, 7 values,
# so one thread has nothing to do.
n = 7
out = np.zeros(n, dtype=np.int32)
squares(drv.Out(out), np.int32(n), block=(4, 1, 1), grid=(2, 1))

expected = np.arange(n, dtype=np.int32) ** 2
print("squares:", out.tolist())
ok = bool(np.array_equal(out, expected))
print("check:", ok)
sys.exit(0 if ok else 1)
