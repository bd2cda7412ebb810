// Unified memory: the host and the kernel touch the same allocation.
#include <cstdio>

__global__ void scale(float* x, float f, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= f;
}

__managed__ int launches_seen;

__global__ void count_launch() {
    if (threadIdx.x == 0 && blockIdx.x == 0) launches_seen += 1;
}

int main() {
    const int n = 5000;
    float* x;
    cudaMallocManaged(&x, n * sizeof(float));
    for (int i = 0; i < n; i++) x[i] = i * 0.5f;
    scale<<<(n + 127) / 128, 128>>>(x, 4.0f, n);
    count_launch<<<1, 32>>>();
    count_launch<<<1, 32>>>();
    cudaDeviceSynchronize();
    double sum = 0;
    for (int i = 0; i < n; i++) sum += x[i];
    printf("x[4999] = %.1f, sum = %.1f, launches seen = %d\n", x[n - 1], sum, launches_seen);
    printf(x[n - 1] == 9998.0f && launches_seen == 2 ? "PASS\n" : "FAIL\n");
    cudaFree(x);
    return 0;
}
