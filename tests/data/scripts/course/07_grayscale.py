"""Lesson 7: colour image to grayscale with a 2D grid.

The image is stored as (height, width, 3) uint8, row-major, so pixel
(x, y) starts at byte 3 * (y * width + x). Integer weights that sum to
256 make the result exactly reproducible with NumPy.
"""
import sys

import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
from pycuda.compiler import SourceModule

mod = SourceModule("""
__global__ void rgb_to_gray(const unsigned char *rgb, unsigned char *gray,
                            int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;   // column
    int y = blockIdx.y * blockDim.y + threadIdx.y;   // row
    if (x >= width || y >= height)
        return;                                      // outside the image

    int p = y * width + x;
    int r = rgb[3 * p + 0];
    int g = rgb[3 * p + 1];
    int b = rgb[3 * p + 2];
    // 77 + 150 + 29 = 256, so this is a weighted average.
    gray[p] = (unsigned char)((77 * r + 150 * g + 29 * b) >> 8);
}
""")
rgb_to_gray = mod.get_function("rgb_to_gray")

width, height = 451, 300
# A made-up scene: a sky that darkens upwards, a sun, green hills; a little noise
# so that every colour channel takes many values.
y, x = np.mgrid[0:height, 0:width]
scene = np.zeros((height, width, 3))
scene[..., 0] = 90 + 100 * y / height
scene[..., 1] = 140 + 60 * y / height
scene[..., 2] = 235 - 30 * y / height
sun = (x - 330) ** 2 + (y - 80) ** 2 < 45 ** 2
scene[sun] = (255, 220, 90)
hills = y > 210 + 30 * np.sin(x / 40.0)
scene[hills] = np.stack([40 + 0 * x, 120 + 40 * np.cos(x / 23.0), 50 + 0 * x], axis=-1)[hills]
rng = np.random.default_rng(7)
scene += rng.normal(0, 6, scene.shape)
image = np.clip(scene, 0, 255).astype(np.uint8)
gray = np.zeros((height, width), dtype=np.uint8)

# 16x16 threads per block; enough blocks to cover every pixel.
block = (16, 16, 1)
grid = ((width + block[0] - 1) // block[0],     # 29 blocks across
        (height + block[1] - 1) // block[1])    # 19 blocks down
print("image %dx%d, grid %s of blocks %s" % (width, height, grid, block[:2]))

rgb_to_gray(drv.In(image), drv.Out(gray), np.int32(width), np.int32(height),
            block=block, grid=grid)

# Same formula in NumPy (in int32 so nothing overflows).
rgb = image.astype(np.int32)
expected = ((77 * rgb[..., 0] + 150 * rgb[..., 1] + 29 * rgb[..., 2]) >> 8).astype(np.uint8)

ok = bool(np.array_equal(gray, expected))
print("mean gray level: %.2f" % gray.mean())
print("check:", ok)
sys.exit(0 if ok else 1)
