"""Lesson 14: GPUArray, NumPy-like arrays that live on the GPU.

Arithmetic on GPUArrays runs as kernels that PyCUDA writes for us, and
reductions (sum, max, min, dot) come ready-made. A GPUArray can also be
passed straight to our own kernel: PyCUDA passes its device pointer.
"""
import sys

import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
import pycuda.gpuarray as gpuarray
from pycuda.compiler import SourceModule

n = 100003
rng = np.random.default_rng(14)
x = rng.random(n).astype(np.float32)
y = (1.0 + rng.random(n)).astype(np.float32)       # in [1, 2): safe to divide by

# 1. Upload and compute elementwise, with arrays and scalars mixed.
a = gpuarray.to_gpu(x)
b = gpuarray.to_gpu(y)
c = 2 * a + b * b - a / b + 1.5
ok_elementwise = np.allclose(c.get(), 2 * x + y * y - x / y + 1.5, rtol=1e-5)

# 2. Reductions: each returns a one-element GPUArray; .get() fetches it.
total = float(gpuarray.sum(a).get())
largest = float(gpuarray.max(a).get())
smallest = float(gpuarray.min(a).get())
dot = float(gpuarray.dot(a, b).get())
ok_reduce = (np.isclose(total, np.sum(x, dtype=np.float64), rtol=1e-5)
             and largest == x.max() and smallest == x.min()
             and np.isclose(dot, np.dot(x.astype(np.float64), y), rtol=1e-5))
print("sum %.3f  max %.6f  min %.6f  dot %.3f" % (total, largest, smallest, dot))

# 3. Our own kernel on GPUArrays: out[i] = a[i] * idx[i].
mod = SourceModule("""
__global__ void scale_by(const float *a, const float *idx, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a[i] * idx[i];
}
""")
scale_by = mod.get_function("scale_by")

idx = gpuarray.arange(0, n, 1, dtype=np.float32)   # 0, 1, 2, ... on the GPU
out = gpuarray.empty(n, dtype=np.float32)
threads = 256
blocks = (n + threads - 1) // threads
# Passing the arrays themselves, or their .gpudata, is the same thing.
scale_by(a, idx, out.gpudata, np.int32(n), block=(threads, 1, 1), grid=(blocks, 1))
ok_kernel = np.allclose(out.get(), x * np.arange(n, dtype=np.float32), rtol=1e-6)

# 4. zeros() really is all zeros.
ok_zeros = float(gpuarray.max(gpuarray.zeros(n, dtype=np.float32)).get()) == 0.0

print("elementwise:", bool(ok_elementwise), " reductions:", bool(ok_reduce),
      " kernel:", bool(ok_kernel), " zeros:", bool(ok_zeros))
ok = bool(ok_elementwise and ok_reduce and ok_kernel and ok_zeros)
print("check:", ok)
sys.exit(0 if ok else 1)
