// Course-notes style: colour to gray over packed RGB bytes (three bytes per pixel, r g b), one thread per pixel.
__global__ void rgb_to_gray(unsigned char *rgb, unsigned char *gray, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        int idx = y * width + x;
        unsigned char r = rgb[idx * 3];
        unsigned char g = rgb[idx * 3 + 1];
        unsigned char b = rgb[idx * 3 + 2];
        gray[idx] = (unsigned char)(0.21f * r + 0.71f * g + 0.07f * b);
    }
}
