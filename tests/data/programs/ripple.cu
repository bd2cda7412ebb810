// Exercise 4: a 2D grid of blocks over a picture that is no multiple of the block; the host checks every pixel.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define W 301
#define H 203

__global__ void ripple(float* img, int width, int height, float cx, float cy) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float dx = x - cx, dy = y - cy;
    float d = sqrtf(dx * dx + dy * dy);
    img[y * width + x] = 0.5f + 0.5f * cosf(d * 0.15f) / (1.0f + d * 0.02f);
}

int main() {
    size_t bytes = W * H * sizeof(float);
    float* h_img = (float*)malloc(bytes);
    float* d_img;
    cudaMalloc(&d_img, bytes);
    dim3 block(16, 16);
    dim3 grid((W + block.x - 1) / block.x, (H + block.y - 1) / block.y);
    ripple<<<grid, block>>>(d_img, W, H, 120.0f, 90.0f);
    cudaMemcpy(h_img, d_img, bytes, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float dx = x - 120.0f, dy = y - 90.0f, d = std::sqrt(dx * dx + dy * dy);
            float want = 0.5f + 0.5f * std::cos(d * 0.15f) / (1.0f + d * 0.02f);
            if (std::fabs(h_img[y * W + x] - want) > 1e-4f) bad++;
        }
    printf("grid %u x %u, %d pixels wrong\n", grid.x, grid.y, bad);
    printf(bad ? "FAILED\n" : "PASSED\n");
    cudaFree(d_img);
    free(h_img);
    return bad ? 1 : 0;
}
