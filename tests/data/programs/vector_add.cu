// Exercise 1: add two vectors on the GPU and check the sum on the host.
#include <cstdio>
#include <cstdlib>

#define N 1000003  // not a multiple of the block
#define THREADS 256

__global__ void vadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main() {
    size_t bytes = N * sizeof(float);
    float* h_a = (float*)malloc(bytes);
    float* h_b = (float*)malloc(bytes);
    float* h_c = (float*)malloc(bytes);
    for (int i = 0; i < N; i++) {
        h_a[i] = (float)(i % 1000);
        h_b[i] = 2.0f * (float)(i % 77);
    }
    float *d_a, *d_b, *d_c;
    cudaMalloc(&d_a, bytes);
    cudaMalloc(&d_b, bytes);
    cudaMalloc(&d_c, bytes);
    cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice);
    int blocks = (N + THREADS - 1) / THREADS;
    vadd<<<blocks, THREADS>>>(d_a, d_b, d_c, N);
    cudaMemcpy(h_c, d_c, bytes, cudaMemcpyDeviceToHost);
    int errors = 0;
    for (int i = 0; i < N; i++)
        if (h_c[i] != h_a[i] + h_b[i]) errors++;
    printf("blocks: %d, c[12345] = %.1f\n", blocks, h_c[12345]);
    if (errors == 0) printf("Success!\n");
    else printf("FAILED: %d wrong\n", errors);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
    free(h_a);
    free(h_b);
    free(h_c);
    return errors ? 1 : 0;
}
