// Course-notes style (no header, no const): a 3x3 box blur of a grayscale image, one thread per pixel.
// Pixels at the border average only the neighbours inside the image.
__global__ void blur_filter(unsigned char *input, unsigned char *output, int width, int height)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < width && row < height) {
        int sum = 0;
        int pixels = 0;
        for (int dy = -1; dy <= 1; ++dy) {
            for (int dx = -1; dx <= 1; ++dx) {
                int r = row + dy;
                int c = col + dx;
                if (r >= 0 && r < height && c >= 0 && c < width) {
                    sum += input[r * width + c];
                    pixels++;
                }
            }
        }
        output[row * width + col] = (unsigned char)(sum / pixels);
    }
}
