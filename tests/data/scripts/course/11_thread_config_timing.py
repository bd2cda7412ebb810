"""Lesson 11: does the block size matter?

The same kernel is launched with 32 ... 1024 threads per block and timed
with CUDA events. Events are recorded in the GPU's stream, so they
measure the kernel itself rather than Python overhead.
"""
import sys

import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
from pycuda.compiler import SourceModule

mod = SourceModule("""
__global__ void poly(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = (3.0f * v + 2.0f) * v + 1.0f;    // 3x^2 + 2x + 1
    }
}
""")
poly = mod.get_function("poly")

n = 200003
rng = np.random.default_rng(11)
x = rng.random(n).astype(np.float32)
expected = (3.0 * x + 2.0) * x + 1.0
zeros = np.zeros_like(x)

d_x = drv.mem_alloc(x.nbytes)
d_y = drv.mem_alloc(x.nbytes)
drv.memcpy_htod(d_x, x)

# Warm-up launch: the first launch of a kernel pays one-off start-up
# costs that would otherwise be counted in the first row of the table.
poly(d_x, d_y, np.int32(n), block=(256, 1, 1), grid=((n + 255) // 256, 1))

start, end = drv.Event(), drv.Event()
y = np.empty_like(x)
all_ok = True

print("%8s %8s %10s %6s" % ("threads", "blocks", "time (ms)", "ok"))
for threads in (32, 64, 128, 256, 512, 1024):
    blocks = (n + threads - 1) // threads
    drv.memcpy_htod(d_y, zeros)         # clear the output from the last run

    start.record()
    poly(d_x, d_y, np.int32(n), block=(threads, 1, 1), grid=(blocks, 1))
    end.record()
    end.synchronize()                   # wait until the kernel has finished
    ms = start.time_till(end)

    drv.memcpy_dtoh(y, d_y)
    ok = bool(np.allclose(y, expected, rtol=1e-5))
    all_ok = all_ok and ok
    print("%8d %8d %10.4f %6s" % (threads, blocks, ms, ok))

print("check:", all_ok)
sys.exit(0 if all_ok else 1)
