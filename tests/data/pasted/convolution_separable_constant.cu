/*@playground
title: Separable convolution with __constant__ weights (pasted)
category: Pasted samples
about: A Gaussian blur in two passes, rows then columns, reading its 17 weights from `__constant__` memory.
  The sample's host code filled them with cudaMemcpyToSymbol; here the header's `constant` line does.
param width: int = 211
param height: int = 157
param sigma: float = 3.0 range 0.5..8
buffer d_Src: float[width * height] in random(seed=21, min=0, max=1)
buffer d_Tmp: float[width * height] out zeros
buffer d_Dst: float[width * height] out zeros
constant c_Kernel: float[17] = gaussian(sigma)
block: 16 x 8
grid: ceil(width / block.x) x ceil(height / block.y)
step: convolutionRows
step: convolutionColumns
problem: width x height
view d_Dst: image(width, height)
reference: separable_reference
tolerance: 1e-4
*/
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>
#include <helper_cuda.h>

#define KERNEL_RADIUS 8
#define KERNEL_LENGTH (2 * KERNEL_RADIUS + 1)

__constant__ float c_Kernel[KERNEL_LENGTH];

// Clamped read: the image's edge repeats outward.
__device__ float at(const float* img, int x, int y, int width, int height)
{
    x = min(max(x, 0), width - 1);
    y = min(max(y, 0), height - 1);
    return img[y * width + x];
}

__global__ void convolutionRows(const float* d_Src, float* d_Tmp, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float sum = 0;
    for (int k = -KERNEL_RADIUS; k <= KERNEL_RADIUS; ++k)
        sum += c_Kernel[KERNEL_RADIUS - k] * at(d_Src, x + k, y, width, height);
    d_Tmp[y * width + x] = sum;
}

__global__ void convolutionColumns(const float* d_Tmp, float* d_Dst, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float sum = 0;
    for (int k = -KERNEL_RADIUS; k <= KERNEL_RADIUS; ++k)
        sum += c_Kernel[KERNEL_RADIUS - k] * at(d_Tmp, x, y + k, width, height);
    d_Dst[y * width + x] = sum;
}

// Host side of the sample: the weights go to constant memory before the launches.
void setConvolutionKernel(float sigma)
{
    float h_Kernel[KERNEL_LENGTH];
    float total = 0;
    for (int i = 0; i < KERNEL_LENGTH; ++i) {
        float d = (float)(i - KERNEL_RADIUS);
        h_Kernel[i] = expf(-d * d / (2 * sigma * sigma));
        total += h_Kernel[i];
    }
    for (int i = 0; i < KERNEL_LENGTH; ++i) h_Kernel[i] /= total;
    checkCudaErrors(cudaMemcpyToSymbol(c_Kernel, h_Kernel, KERNEL_LENGTH * sizeof(float)));
}

int main(int argc, char** argv)
{
    const int w = 3072, h = 3072;
    float *d_Src, *d_Tmp, *d_Dst;
    checkCudaErrors(cudaMalloc((void**)&d_Src, w * h * sizeof(float)));
    checkCudaErrors(cudaMalloc((void**)&d_Tmp, w * h * sizeof(float)));
    checkCudaErrors(cudaMalloc((void**)&d_Dst, w * h * sizeof(float)));
    setConvolutionKernel(3.0f);
    dim3 threads(16, 8), blocks((w + 15) / 16, (h + 7) / 8);
    convolutionRows<<<blocks, threads>>>(d_Src, d_Tmp, w, h);
    convolutionColumns<<<blocks, threads>>>(d_Tmp, d_Dst, w, h);
    checkCudaErrors(cudaDeviceSynchronize());
    printf("done\n");
    return 0;
}

#ifdef PLAYGROUND_REFERENCE
#include <cmath>
#include <vector>
static void separable_reference(const float* d_Src, float* d_Tmp, float* d_Dst, int width, int height, float sigma)
{
    const int r = 8;
    std::vector<double> w(2 * r + 1);
    double total = 0;
    for (int i = 0; i <= 2 * r; ++i) total += w[i] = std::exp(-double(i - r) * (i - r) / (2.0 * sigma * sigma));
    for (double& v : w) v /= total;
    auto clampi = [](int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; };
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            double s = 0;
            for (int k = -r; k <= r; ++k) s += w[r - k] * d_Src[y * width + clampi(x + k, 0, width - 1)];
            d_Tmp[y * width + x] = float(s);
        }
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            double s = 0;
            for (int k = -r; k <= r; ++k) s += w[r - k] * d_Tmp[clampi(y + k, 0, height - 1) * width + x];
            d_Dst[y * width + x] = float(s);
        }
}
#endif
