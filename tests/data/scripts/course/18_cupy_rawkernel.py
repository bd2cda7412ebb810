"""Lesson 18: the same kind of kernels from CuPy.

cp.RawKernel compiles one CUDA C kernel from source; cp.RawModule
compiles a whole source file, and get_function picks kernels from it.
The launch is kernel(grid, block, args): all three are tuples. The
kernels need extern "C" so that CuPy finds them by their plain names.
"""
import sys

import cupy as cp
import numpy as np

saxpy = cp.RawKernel("""
extern "C" __global__
void saxpy(float a, const float *x, const float *y, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * x[i] + y[i];
}
""", "saxpy")

n = 100003
rng = np.random.default_rng(18)
x_host = rng.random(n).astype(np.float32)
y_host = rng.random(n).astype(np.float32)

x = cp.asarray(x_host)                 # host -> device
y = cp.asarray(y_host)
out = cp.empty(n, dtype=cp.float32)

threads = 256
blocks = (n + threads - 1) // threads
saxpy((blocks,), (threads,), (np.float32(2.5), x, y, out, np.int32(n)))
ok_saxpy = np.allclose(cp.asnumpy(out), np.float32(2.5) * x_host + y_host, rtol=1e-6)

# A module with two kernels.
module = cp.RawModule(code="""
extern "C" __global__ void add_one(float *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] += 1.0f;
}

extern "C" __global__ void times_index(const float *v, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = v[i] * i;
}
""")
add_one = module.get_function("add_one")
times_index = module.get_function("times_index")

v = cp.ones(n, dtype=cp.float32)       # all 1.0
w = cp.zeros(n, dtype=cp.float32)
add_one((blocks,), (threads,), (v, np.int32(n)))          # now all 2.0
times_index((blocks,), (threads,), (v, w, np.int32(n)))   # w[i] = 2 i

expected_w = 2.0 * cp.arange(n, dtype=cp.float32)
ok_module = np.array_equal(w.get(), cp.asnumpy(expected_w))

print("saxpy ok:", bool(ok_saxpy), " module ok:", bool(ok_module))
ok = bool(ok_saxpy and ok_module)
print("check:", ok)
sys.exit(0 if ok else 1)
