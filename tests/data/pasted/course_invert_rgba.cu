// Course-notes style: the negative of an RGBA image (alpha kept), one uchar4 per pixel.
__global__ void invert(uchar4 *image, uchar4 *result, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    uchar4 p = image[y * width + x];
    result[y * width + x] = make_uchar4(255 - p.x, 255 - p.y, 255 - p.z, p.w);
}
