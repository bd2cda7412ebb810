"""Pitfall: the kernel has no bounds check.

n = 1000, but 4 blocks of 256 threads make 1024 threads. Threads
1000..1023 read past the end of a and b and write past the end of c.
On a real GPU this often goes unnoticed (the allocation is rounded up),
so the check below may well print True: the bug is silent, not absent.
The fix is `if (i < n)` around the body.
"""
import sys

import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
from pycuda.compiler import SourceModule

mod = SourceModule("""
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    c[i] = a[i] + b[i];          // BUG: no `if (i < n)`
}
""")
vector_add = mod.get_function("vector_add")

n = 1000
rng = np.random.default_rng(1000)
a = rng.random(n).astype(np.float32)
b = rng.random(n).astype(np.float32)
c = np.zeros_like(a)

block_size = 256
grid_size = 4                    # 4 * 256 = 1024 threads for 1000 elements
vector_add(drv.In(a), drv.In(b), drv.Out(c), np.int32(n),
           block=(block_size, 1, 1), grid=(grid_size, 1))

ok = bool(np.allclose(c, a + b))
print("check:", ok)
sys.exit(0 if ok else 1)
