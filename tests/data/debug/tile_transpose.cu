/*@playground
title: Transpose by a padded shared tile (the debugger's tests)
about: A 16x16 block loads a 16x16 tile into tile[16][17], waits, and writes it transposed. 37 x 21 leaves
  the last blocks of each row and column partly outside the matrix.
param width: int = 37 range 1..4096
param height: int = 21 range 1..4096
buffer in: float[width * height] in ramp(start=0, step=0.5)
buffer out: float[width * height] out zeros
block: 16 x 16
grid: ceil(width / 16) x ceil(height / 16)
*/
__global__ void tile_transpose(const float* in, float* out, int width, int height)
{
    __shared__ float tile[16][17];
    int x = blockIdx.x * 16 + threadIdx.x;
    int y = blockIdx.y * 16 + threadIdx.y;
    if (x < width && y < height)
        tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    __syncthreads();
    int tx = blockIdx.y * 16 + threadIdx.x;
    int ty = blockIdx.x * 16 + threadIdx.y;
    if (tx < height && ty < width)
        out[ty * height + tx] = tile[threadIdx.x][threadIdx.y];
}
