"""Lesson 3: vector addition, c = a + b.

drv.In / drv.Out let PyCUDA copy NumPy arrays to the GPU before the
launch and back afterwards, so we never touch device pointers here.
"""
import sys

import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
from pycuda.compiler import SourceModule

mod = SourceModule("""
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    // One thread per element.
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    // n is not a multiple of the block size, so the threads of the last
    // block that fall past the end must do nothing.
    if (i < n)
        c[i] = a[i] + b[i];
}
""")
vector_add = mod.get_function("vector_add")

n = 100003
rng = np.random.default_rng(3)
a = rng.random(n).astype(np.float32)   # kernels take float, not double
b = rng.random(n).astype(np.float32)
c = np.empty_like(a)

block_size = 256
grid_size = (n + block_size - 1) // block_size   # 391 blocks
print("n = %d, %d blocks of %d threads (%d threads, %d idle)"
      % (n, grid_size, block_size, grid_size * block_size,
         grid_size * block_size - n))

vector_add(drv.In(a), drv.In(b), drv.Out(c), np.int32(n),
           block=(block_size, 1, 1), grid=(grid_size, 1))

# The sum of two float32 values is the same on the GPU and on the CPU.
ok = bool(np.allclose(c, a + b))
print("c[:3] =", c[:3], " a[:3] + b[:3] =", (a + b)[:3])
print("check:", ok)
sys.exit(0 if ok else 1)
