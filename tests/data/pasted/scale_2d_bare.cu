// A 2D kernel as pasted from elsewhere (no header): out = in * factor over a width x height image.
__global__ void scale2d(const float* in, float* out, float factor, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) out[y * width + x] = in[y * width + x] * factor;
}
