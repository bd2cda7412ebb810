"""Lesson 8: 3x3 box blur (a stencil) on a float32 image.

Each output pixel is the average of the 3x3 neighbourhood around it.
At the borders we clamp coordinates, i.e. repeat the edge pixels.
"""
import sys

import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
from pycuda.compiler import SourceModule

mod = SourceModule("""
__device__ int clamp_int(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

__global__ void box_blur3(const float *in, float *out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;

    float sum = 0.0f;
    for (int dy = -1; dy <= 1; ++dy) {
        int yy = clamp_int(y + dy, 0, height - 1);
        for (int dx = -1; dx <= 1; ++dx) {
            int xx = clamp_int(x + dx, 0, width - 1);
            sum += in[yy * width + xx];
        }
    }
    out[y * width + x] = sum * (1.0f / 9.0f);
}
""", options=["-use_fast_math"])   # extra nvcc flags go in options
box_blur3 = mod.get_function("box_blur3")

width, height = 451, 300
rng = np.random.default_rng(8)
image = rng.random((height, width)).astype(np.float32)
blurred = np.empty_like(image)

block = (16, 16, 1)
grid = ((width + 15) // 16, (height + 15) // 16, 1)
box_blur3(drv.In(image), drv.Out(blurred), np.int32(width), np.int32(height),
          block=block, grid=grid)

# Reference: pad by repeating the edges, then average 9 shifted views.
padded = np.pad(image.astype(np.float64), 1, mode="edge")
expected = np.zeros((height, width))
for dy in range(3):
    for dx in range(3):
        expected += padded[dy:dy + height, dx:dx + width]
expected /= 9.0

print("max abs difference: %.2e" % np.abs(blurred - expected).max())
ok = bool(np.allclose(blurred, expected, rtol=1e-5, atol=1e-6))
print("check:", ok)
sys.exit(0 if ok else 1)
