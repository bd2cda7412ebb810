// A launch with too many threads per block: nothing runs, and cudaGetLastError says why.
#include <cstdio>

__global__ void fill(int* out, int value) { out[blockIdx.x * blockDim.x + threadIdx.x] = value; }

int main() {
    int* d;
    cudaMalloc(&d, 4096 * sizeof(int));
    cudaMemset(d, 0, 4096 * sizeof(int));
    fill<<<2, 2048>>>(d, 7);
    cudaError_t launch = cudaGetLastError();
    printf("launch: %s (%s)\n", cudaGetErrorName(launch), cudaGetErrorString(launch));
    printf("after reading it: %s\n", cudaGetErrorString(cudaGetLastError()));
    fill<<<4, 1024>>>(d, 7);
    cudaError_t second = cudaGetLastError();
    cudaError_t sync = cudaDeviceSynchronize();
    int h[4096];
    cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
    printf("second launch: %s, sync: %s, h[4095] = %d\n", cudaGetErrorString(second), cudaGetErrorString(sync),
           h[4095]);
    cudaFree(d);
    return 0;
}
