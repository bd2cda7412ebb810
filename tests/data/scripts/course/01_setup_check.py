"""Lesson 1: is everything set up?

Prints what PyCUDA knows about the GPU, then runs the smallest useful
kernel (each thread writes one number) and checks the result.
"""
import sys

import numpy as np
import pycuda.autoinit  # creates a context on the first GPU
import pycuda.driver as drv
from pycuda.compiler import SourceModule

# --- 1. What hardware do we have? ---------------------------------------
dev = pycuda.autoinit.device
major, minor = dev.compute_capability()
print("CUDA devices found :", drv.Device.count())
print("Device name        :", dev.name())
print("Compute capability : %d.%d" % (major, minor))
print("Total memory       : %.0f MiB" % (dev.total_memory() / (1024 * 1024)))
print("CUDA version       :", ".".join(str(v) for v in drv.get_version()))

# Device(0) is the same GPU that autoinit picked.
print("Device(0) name     :", drv.Device(0).name())

# --- 2. A trivial kernel: out[i] = i + 1 --------------------------------
mod = SourceModule("""
__global__ void fill_counting(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)              // the last block is only partly used
        out[i] = i + 1;
}
""")
fill_counting = mod.get_function("fill_counting")

n = 1000                      # deliberately not a multiple of 128
threads = 128
blocks = (n + threads - 1) // threads   # round up

out = np.zeros(n, dtype=np.int32)
fill_counting(drv.Out(out), np.int32(n),
              block=(threads, 1, 1), grid=(blocks, 1))
pycuda.autoinit.context.synchronize()

# --- 3. Compare with NumPy ----------------------------------------------
expected = np.arange(1, n + 1, dtype=np.int32)
ok = bool(np.array_equal(out, expected))
print("first values:", out[:5], "... last:", out[-1])
print("check:", ok)
sys.exit(0 if ok else 1)
