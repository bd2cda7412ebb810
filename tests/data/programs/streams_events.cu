// Two streams, each copying and processing half of the data; events time the whole.
#include <cstdio>

__global__ void square(int* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = v[i] * v[i];
}

int main() {
    const int n = 1 << 16, half = n / 2;
    int* h;
    cudaMallocHost(&h, n * sizeof(int));
    for (int i = 0; i < n; i++) h[i] = i % 100;
    int* d;
    cudaMalloc(&d, n * sizeof(int));
    cudaStream_t s[2];
    for (int k = 0; k < 2; k++) cudaStreamCreate(&s[k]);
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start);
    for (int k = 0; k < 2; k++) {
        int off = k * half;
        cudaMemcpyAsync(d + off, h + off, half * sizeof(int), cudaMemcpyHostToDevice, s[k]);
        square<<<(half + 255) / 256, 256, 0, s[k]>>>(d + off, half);
        cudaMemcpyAsync(h + off, d + off, half * sizeof(int), cudaMemcpyDeviceToHost, s[k]);
    }
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = -1;
    cudaError_t e = cudaEventElapsedTime(&ms, start, stop);
    for (int k = 0; k < 2; k++) cudaStreamSynchronize(s[k]);
    long long sum = 0;
    for (int i = 0; i < n; i++) sum += h[i];
    printf("sum of squares = %lld\n", sum);
    printf("timed: %s\n", e == cudaSuccess && ms >= 0 ? "yes" : "no");
    for (int k = 0; k < 2; k++) cudaStreamDestroy(s[k]);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaFreeHost(h);
    cudaFree(d);
    return 0;
}
