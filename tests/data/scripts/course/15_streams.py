"""Lesson 15: overlapping copies and kernels with streams.

The input is cut into 4 chunks. Each chunk gets its own stream, and in
that stream: copy in (async), kernel, copy out (async). Work in
different streams may overlap. Async copies need page-locked host
memory, so every chunk has pinned input and output arrays.
"""
import sys

import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
from pycuda.compiler import SourceModule

mod = SourceModule("""
__global__ void shift_scale(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2.0f * sqrtf(in[i]) + 1.0f;
}
""")
shift_scale = mod.get_function("shift_scale")

n = 400003
n_streams = 4
rng = np.random.default_rng(15)
data = rng.random(n).astype(np.float32)

# Chunk boundaries: chunks differ in length by at most one element.
bounds = [int(b) for b in np.linspace(0, n, n_streams + 1)]
streams, h_in, h_out, d_in, d_out = [], [], [], [], []
for k in range(n_streams):
    length = bounds[k + 1] - bounds[k]
    streams.append(drv.Stream())
    h_in.append(drv.pagelocked_empty(length, dtype=np.float32))
    h_out.append(drv.pagelocked_zeros(length, dtype=np.float32))
    h_in[k][:] = data[bounds[k]:bounds[k + 1]]
    d_in.append(drv.mem_alloc(h_in[k].nbytes))
    d_out.append(drv.mem_alloc(h_out[k].nbytes))

# Queue all the work; none of these calls waits for the GPU.
threads = 256
for k, s in enumerate(streams):
    length = len(h_in[k])
    blocks = (length + threads - 1) // threads
    drv.memcpy_htod_async(d_in[k], h_in[k], s)
    shift_scale(d_in[k], d_out[k], np.int32(length),
                block=(threads, 1, 1), grid=(blocks, 1), stream=s)
    drv.memcpy_dtoh_async(h_out[k], d_out[k], s)

# Now wait for every stream before reading the results.
for s in streams:
    s.synchronize()

result = np.concatenate(h_out)
expected = 2.0 * np.sqrt(data) + 1.0
print("chunks:", [len(h) for h in h_in])
ok = bool(np.allclose(result, expected, rtol=1e-6))
print("check:", ok)
sys.exit(0 if ok else 1)
