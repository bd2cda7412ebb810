// The kernel has no bounds check, and the grid covers more threads than elements.
#include <cstdio>

__global__ void twice(const float* in, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = 2.0f * in[i];
}

int main() {
    const int n = 1000;
    float h[n];
    for (int i = 0; i < n; i++) h[i] = i;
    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice);
    twice<<<(n + 255) / 256, 256>>>(d_in, d_out);
    cudaError_t launch = cudaGetLastError();
    cudaError_t sync = cudaDeviceSynchronize();
    printf("launch: %s\nsync: %s\n", cudaGetErrorString(launch), cudaGetErrorString(sync));
    return sync == cudaSuccess ? 0 : 1;
}
