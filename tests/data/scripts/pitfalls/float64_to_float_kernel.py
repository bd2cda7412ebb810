"""Pitfall: passing float64 data to a kernel that expects float.

np.random.rand returns float64 (8 bytes per value), but the kernel reads
and writes float (4 bytes). PyCUDA copies the raw bytes without looking
at the kernel's signature, so the kernel reinterprets the halves of
each double as floats, and only the first half of `out` is written.
The result is garbage and the check prints False.
The fix is .astype(np.float32) on the inputs and outputs.
"""
import sys

import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
from pycuda.compiler import SourceModule

mod = SourceModule("""
__global__ void double_it(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2.0f * x[i];
}
""")
double_it = mod.get_function("double_it")

n = 1000
np.random.seed(64)
x = np.random.rand(n)            # BUG: this is float64, not float32
out = np.zeros_like(x)           # ... and so is this
print("x.dtype =", x.dtype, " itemsize =", x.itemsize)

threads = 256
blocks = (n + threads - 1) // threads
double_it(drv.In(x), drv.Out(out), np.int32(n),
          block=(threads, 1, 1), grid=(blocks, 1))

ok = bool(np.allclose(out, 2.0 * x))
print("check:", ok)
sys.exit(0 if ok else 1)
