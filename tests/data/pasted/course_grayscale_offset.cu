// Course-notes style: colour to grey through an offset variable, one thread per pixel, packed RGB input.
__global__ void colorToGrey(unsigned char *grey, unsigned char *rgb, int cols, int rows)
{
    int col = threadIdx.x + blockIdx.x * blockDim.x;
    int row = threadIdx.y + blockIdx.y * blockDim.y;
    if (col < cols && row < rows) {
        int greyOffset = row * cols + col;
        int rgbOffset = greyOffset * 3;
        unsigned char r = rgb[rgbOffset];
        unsigned char g = rgb[rgbOffset + 1];
        unsigned char b = rgb[rgbOffset + 2];
        grey[greyOffset] = 0.21f * r + 0.71f * g + 0.07f * b;
    }
}
