"""Lesson 4: a "map" with explicit memory management.

Instead of drv.In/drv.Out we allocate device memory ourselves and copy
in both directions by hand: mem_alloc, memcpy_htod, memcpy_dtoh. We also
copy device-to-device with memcpy_dtod to keep a backup of the input.
"""
import sys

import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
from pycuda.compiler import SourceModule

mod = SourceModule("""
__global__ void square_in_place(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = x[i] * x[i];
}
""")
square_in_place = mod.get_function("square_in_place")

n = 250007
x = np.linspace(-3.0, 3.0, n).astype(np.float32)

# 1. Allocate two device buffers of the same size (in bytes).
d_x = drv.mem_alloc(x.nbytes)
d_backup = drv.mem_alloc(x.nbytes)

# 2. Host -> device, then keep an on-device copy of the original data.
drv.memcpy_htod(d_x, x)
drv.memcpy_dtod(d_backup, d_x, x.nbytes)

# 3. Square the values in place.
threads = 256
blocks = (n + threads - 1) // threads
square_in_place(d_x, np.int32(n), block=(threads, 1, 1), grid=(blocks, 1, 1))

# 4. Device -> host for both buffers.
squared = np.empty_like(x)
original = np.empty_like(x)
drv.memcpy_dtoh(squared, d_x)
drv.memcpy_dtoh(original, d_backup)

# 5. Check: the result is x*x and the backup is untouched.
ok_square = np.allclose(squared, x * x)
ok_backup = np.array_equal(original, x)
print("squared ok:", bool(ok_square), " backup ok:", bool(ok_backup))

# Device memory is freed when d_x and d_backup are garbage collected.
ok = bool(ok_square and ok_backup)
print("check:", ok)
sys.exit(0 if ok else 1)
