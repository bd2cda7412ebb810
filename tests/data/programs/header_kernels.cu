// Kernels from an included header (one of them overloaded, one launched by the header's own helper) and a kernel
// with an unnamed parameter: each program's result is checked on the host.
#include <cstdio>
#include <cstdlib>
#include "header_kernels.cuh"

// The middle parameter is unused and has no name.
__global__ void fill(int* out, int, int value)
{
    out[blockIdx.x * blockDim.x + threadIdx.x] = value;
}

int main()
{
    const int n = 1000;  // not a multiple of any block
    float* h_in = (float*)malloc(n * sizeof(float));
    double* h_dbl = (double*)malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) {
        h_in[i] = (float)(i % 7);
        h_dbl[i] = (double)(i % 5);
    }
    float *d_in, *d_partial;
    double* d_dbl;
    int* d_fill;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_partial, 16 * sizeof(float));
    cudaMalloc(&d_dbl, n * sizeof(double));
    cudaMalloc(&d_fill, 64 * sizeof(int));
    cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_dbl, h_dbl, n * sizeof(double), cudaMemcpyHostToDevice);

    scale<<<(n + 255) / 256, 256>>>(d_in, 2.0f, n);
    int blocks = launch_block_sums(d_in, d_partial, n);
    scale<<<(n + 255) / 256, 256>>>(d_dbl, 3.0, n);
    fill<<<2, 32>>>(d_fill, 0, 7);
    cudaError_t err = cudaDeviceSynchronize();
    printf("launches: %s\n", cudaGetErrorString(err));

    float partial[16];
    double dbl[1000];
    int filled[64];
    cudaMemcpy(partial, d_partial, blocks * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(dbl, d_dbl, n * sizeof(double), cudaMemcpyDeviceToHost);
    cudaMemcpy(filled, d_fill, 64 * sizeof(int), cudaMemcpyDeviceToHost);

    int wrong = 0;
    float total = 0;
    for (int b = 0; b < blocks; b++) {
        float expect = 0;
        for (int i = b * SUM_BLOCK; i < n && i < (b + 1) * SUM_BLOCK; i++) expect += 2.0f * (float)(i % 7);
        if (partial[b] != expect) wrong++;
        total += partial[b];
    }
    printf("block sums: %d blocks, total %.0f, %s\n", blocks, total, wrong ? "WRONG" : "correct");
    int wrong_dbl = 0;
    for (int i = 0; i < n; i++)
        if (dbl[i] != 3.0 * (double)(i % 5) + 0.25) wrong_dbl++;
    printf("scale(double): dbl[999] = %.2f, %s\n", dbl[n - 1], wrong_dbl ? "WRONG" : "correct");
    int wrong_fill = 0;
    for (int i = 0; i < 64; i++)
        if (filled[i] != 7) wrong_fill++;
    printf("fill: %s\n", wrong_fill ? "WRONG" : "correct");

    bool ok = err == cudaSuccess && !wrong && !wrong_dbl && !wrong_fill;
    printf(ok ? "Test PASSED\n" : "Test FAILED\n");
    cudaFree(d_in);
    cudaFree(d_partial);
    cudaFree(d_dbl);
    cudaFree(d_fill);
    free(h_in);
    free(h_dbl);
    return ok ? 0 : 1;
}
