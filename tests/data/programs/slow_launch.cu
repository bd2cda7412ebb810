// A launch sized for a GPU: every thread does a long loop, over many blocks.
#include <cstdio>

__global__ void busy(float* out, int iterations) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int k = 0; k < iterations; k++) acc = acc * 0.999f + (float)(k & 7);
    out[i] = acc;
}

int main() {
    const int blocks = 4096, threads = 64;
    float* d;
    cudaMalloc(&d, blocks * threads * sizeof(float));
    busy<<<blocks, threads>>>(d, 200000);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return 0;
}
