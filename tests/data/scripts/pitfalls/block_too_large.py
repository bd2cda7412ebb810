"""Pitfall: more threads per block than the hardware allows.

A block may have at most 1024 threads (see MAX_THREADS_PER_BLOCK).
block=(2000, 1, 1) makes the launch itself fail: PyCUDA raises
pycuda._driver.LogicError with "invalid argument" (the call named in the
message depends on the PyCUDA version, e.g. cuLaunchKernel or
cuFuncSetBlockShape).
This script does not catch the error, so it ends with a traceback and
never reaches its check. The fix is a smaller block and more blocks.
"""
import sys

import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
from pycuda.compiler import SourceModule

mod = SourceModule("""
__global__ void fill_ones(float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 1.0f;
}
""")
fill_ones = mod.get_function("fill_ones")

n = 2000
out = np.zeros(n, dtype=np.float32)

# BUG: 2000 threads in one block.
fill_ones(drv.Out(out), np.int32(n), block=(2000, 1, 1), grid=(1, 1))

ok = bool(np.all(out == 1.0))
print("check:", ok)
sys.exit(0 if ok else 1)
