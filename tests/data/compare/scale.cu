/*@playground
title: Scale and shift, 2D vs one row per thread
category: Tests
about: Test lesson for comparisons: out = 2 in + x - y, by a 2D kernel and by one thread per row.
param width: int = 37 range 1..4096
param height: int = 23 range 1..4096
buffer in: float[width * height] in ramp(start=0, step=0.5)
buffer out: float[width * height] out zeros
block: 16 x 16
grid: ceil(width / block.x) x ceil(height / block.y)
problem: width x height
view out: image(width, height) colormap=viridis
reference: scale_reference
kernel: scale_2d
compare: scale_rows
tolerance: 0
*/
extern "C" __global__ void scale_2d(const float* in, float* out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) out[y * width + x] = 2.0f * in[y * width + x] + float(x) - float(y);
}

// One thread per row: thread (tx, ty) of block (bx, by) takes row (by * 16 + ty) * (gridDim.x * 16) + bx * 16 + tx.
extern "C" __global__ void scale_rows(const float* in, float* out, int width, int height)
{
    int threads_x = gridDim.x * blockDim.x;
    int y = (blockIdx.y * blockDim.y + threadIdx.y) * threads_x + blockIdx.x * blockDim.x + threadIdx.x;
    if (y >= height) return;
    for (int x = 0; x < width; ++x) out[y * width + x] = 2.0f * in[y * width + x] + float(x) - float(y);
}

// Wrong on purpose (for the tests): forgets the last column.
extern "C" __global__ void scale_wrong(const float* in, float* out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width - 1 && y < height) out[y * width + x] = 2.0f * in[y * width + x] + float(x) - float(y);
}

#ifdef PLAYGROUND_REFERENCE
static void scale_reference(const float* in, float* out, int width, int height)
{
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) out[y * width + x] = 2.0f * in[y * width + x] + float(x) - float(y);
}
#endif
