"""Lesson 19: CuPy's kernel generators.

ElementwiseKernel: we write only the body for one element; CuPy writes
the indexing and the bounds check. ReductionKernel: we give a map
expression, a reduce expression, a final step and the identity value.
CUDA events (cp.cuda.Event) time the work on the GPU.
"""
import sys

import cupy as cp
import numpy as np

squared_diff = cp.ElementwiseKernel(
    "float32 x, float32 y",          # inputs
    "float32 z",                     # output
    "z = (x - y) * (x - y)",         # the body, for one element
    "squared_diff")

l2_norm = cp.ReductionKernel(
    "T x",                           # input
    "T y",                           # output
    "x * x",                         # map: applied to every element
    "a + b",                         # reduce: combines two partial results
    "y = sqrt(a)",                   # post: applied to the final result
    "0",                             # identity of the reduction
    "l2_norm")

n = 500003
rng = np.random.default_rng(19)
x_host = rng.random(n).astype(np.float32)
y_host = rng.random(n).astype(np.float32)

stream = cp.cuda.Stream()
start, end = cp.cuda.Event(), cp.cuda.Event()
with stream:                         # everything below is queued on `stream`
    x = cp.asarray(x_host)
    y = cp.asarray(y_host)
    # CuPy compiles a kernel on its first call: run both once untimed.
    squared_diff(x, y)
    l2_norm(x)
    start.record()
    d = squared_diff(x, y)
    norm = l2_norm(x)
    end.record()
stream.synchronize()
end.synchronize()
print("kernels took %.3f ms" % cp.cuda.get_elapsed_time(start, end))

ok_diff = np.allclose(cp.asnumpy(d), (x_host - y_host) ** 2, rtol=1e-6, atol=1e-7)
ref_norm = np.sqrt(np.sum(x_host.astype(np.float64) ** 2))
gpu_norm = float(norm.get())         # a 0-d array: fetch its one value
ok_norm = np.isclose(gpu_norm, ref_norm, rtol=1e-4)
print("norm: %.4f  numpy: %.4f" % (gpu_norm, ref_norm))

print("squared_diff ok:", bool(ok_diff), " l2_norm ok:", bool(ok_norm))
ok = bool(ok_diff and ok_norm)
print("check:", ok)
sys.exit(0 if ok else 1)
