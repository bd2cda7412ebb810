// In the style of a one-file sample: the helper header from the samples' Common folder (-I), a device assert,
// and a "Result = PASS" verdict.
#include <cassert>
#include <cstdio>
#include <cuda_runtime.h>
#include <helper_cuda.h>

__global__ void scale_rows(float* m, int rows, int cols, float factor) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    assert(cols > 0);
    if (r < rows && c < cols) m[r * cols + c] *= factor * (r + 1);
}

int main(int argc, char** argv) {
    printf("[Matrix Scale] - Starting...\n");
    findCudaDevice(argc, (const char**)argv);
    const int rows = 37, cols = 53;
    float h[rows * cols];
    for (int i = 0; i < rows * cols; i++) h[i] = 1.0f;
    float* d = nullptr;
    checkCudaErrors(cudaMalloc(reinterpret_cast<void**>(&d), sizeof(h)));
    checkCudaErrors(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice));
    dim3 block(16, 8);
    dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    scale_rows<<<grid, block>>>(d, rows, cols, 0.5f);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaDeviceSynchronize());
    checkCudaErrors(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            if (h[r * cols + c] != 0.5f * (r + 1)) ok = false;
    checkCudaErrors(cudaFree(d));
    printf("Result = %s\n", ok ? "PASS" : "FAIL");
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
