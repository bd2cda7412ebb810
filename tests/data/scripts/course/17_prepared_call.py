"""Lesson 17: prepared calls, constant memory and pointer arithmetic.

- prepare("PPi") tells PyCUDA the argument types once (pointer, pointer,
  int), so each prepared_call skips the type inspection of a plain call.
- A __constant__ array is found with get_global and filled with
  memcpy_htod, like any other device memory.
- int(allocation) is the raw device address: adding a byte offset to it
  lets a kernel work on the second half of a buffer.
"""
import sys

import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
from pycuda.compiler import SourceModule

mod = SourceModule("""
__constant__ float coeffs[4];    // c0 + c1 x + c2 x^2 + c3 x^3

__global__ void cubic(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = ((coeffs[3] * v + coeffs[2]) * v + coeffs[1]) * v + coeffs[0];
    }
}
""")
cubic = mod.get_function("cubic")
cubic.prepare("PPi")

# Fill the constant array.
c = np.array([1.0, -2.0, 0.5, 0.25], dtype=np.float32)
c_ptr, c_size = mod.get_global("coeffs")
print("coeffs: %d bytes at 0x%x" % (c_size, int(c_ptr)))
drv.memcpy_htod(c_ptr, c)

n = 100003
x = np.linspace(-2.0, 2.0, n).astype(np.float32)
d_x = drv.mem_alloc(x.nbytes)
d_y = drv.mem_alloc(x.nbytes)
drv.memcpy_htod(d_x, x)

threads = 128
half = n // 2                    # 50001: first part [0, half), second [half, n)
rest = n - half
item = x.itemsize                # 4 bytes per float

# First part: a prepared call on the start of the buffers.
cubic.prepared_call(((half + threads - 1) // threads, 1), (threads, 1, 1),
                    d_x, d_y, np.int32(half))
# Second part: a plain call on pointers offset by `half` elements.
cubic(np.intp(int(d_x) + item * half), np.intp(int(d_y) + item * half), np.int32(rest),
      block=(threads, 1, 1), grid=((rest + threads - 1) // threads, 1))
drv.Context.synchronize()

y = np.empty_like(x)
drv.memcpy_dtoh(y, d_y)
expected = ((c[3] * x + c[2]) * x + c[1]) * x + c[0]
ok = bool(c_size == c.nbytes and np.allclose(y, expected, rtol=1e-5, atol=1e-5))
print("y[0] = %.4f, y[half] = %.4f, y[-1] = %.4f" % (y[0], y[half], y[-1]))
print("check:", ok)
sys.exit(0 if ok else 1)
