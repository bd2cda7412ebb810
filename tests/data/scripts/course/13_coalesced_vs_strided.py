"""Lesson 13: coalesced vs strided memory access.

Both kernels copy n floats. In the coalesced one, neighbouring threads
read neighbouring addresses, so a warp's 32 reads merge into a few
memory transactions. In the strided one, thread i reads element
i * stride, so every read needs a transaction of its own.

time_kernel=True makes the call return the kernel's run time in seconds.
"""
import sys

import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
from pycuda.compiler import SourceModule

mod = SourceModule("""
__global__ void copy_coalesced(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}

__global__ void copy_strided(const float *in, float *out, int n, int stride)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i * stride];
}
""")
copy_coalesced = mod.get_function("copy_coalesced")
copy_strided = mod.get_function("copy_strided")

n = 250007
stride = 4
rng = np.random.default_rng(13)
src = rng.random(n * stride).astype(np.float32)   # big enough for both

threads = 256
blocks = (n + threads - 1) // threads
out_c = np.zeros(n, dtype=np.float32)
out_s = np.zeros(n, dtype=np.float32)

# Warm up both kernels once, so that one-off start-up costs of the first
# launch are not counted in the comparison.
copy_coalesced(drv.In(src), drv.Out(out_c), np.int32(n),
               block=(threads, 1, 1), grid=(blocks, 1))
copy_strided(drv.In(src), drv.Out(out_s), np.int32(n), np.int32(stride),
             block=(threads, 1, 1), grid=(blocks, 1))

# With drv.In/drv.Out the measured time covers the kernel only, not the
# copies PyCUDA does before and after it.
t_c = copy_coalesced(drv.In(src), drv.Out(out_c), np.int32(n),
                     block=(threads, 1, 1), grid=(blocks, 1), time_kernel=True)
t_s = copy_strided(drv.In(src), drv.Out(out_s), np.int32(n), np.int32(stride),
                   block=(threads, 1, 1), grid=(blocks, 1), time_kernel=True)

print("coalesced: %8.3f ms" % (t_c * 1e3))
print("strided  : %8.3f ms  (stride %d)" % (t_s * 1e3, stride))

ok_c = np.array_equal(out_c, src[:n])
ok_s = np.array_equal(out_s, src[::stride][:n])
print("coalesced ok:", bool(ok_c), " strided ok:", bool(ok_s))
ok = bool(ok_c and ok_s)
print("check:", ok)
sys.exit(0 if ok else 1)
