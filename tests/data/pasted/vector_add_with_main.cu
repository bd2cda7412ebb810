/*@playground
title: Vector add with its host program (pasted)
category: Pasted samples
about: A whole sample program: the kernel plus a main() that allocates, copies, launches and checks.
  The playground runs the kernel itself from this header, so main() is left out of the compile.
param n: int = 50021
buffer a: float[n] in random(seed=1, min=-1, max=1)
buffer b: float[n] in random(seed=2, min=-1, max=1)
buffer c: float[n] out zeros
block: 256
grid: ceil(n / block.x)
problem: n
reference: vector_add_reference
tolerance: 1e-6
*/
#include <stdio.h>
#include <cuda_runtime.h>
#include <helper_cuda.h>

__global__ void vectorAdd(const float* a, const float* b, float* c, int n)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

static void fill(float* v, int count)
{
    for (int i = 0; i < count; ++i) v[i] = rand() / (float)RAND_MAX;
}

int main(void)
{
    int numElements = 50000;
    size_t size = numElements * sizeof(float);
    float* h_A = (float*)malloc(size);
    float* h_B = (float*)malloc(size);
    float* h_C = (float*)malloc(size);
    fill(h_A, numElements);
    fill(h_B, numElements);

    float *d_A = NULL, *d_B = NULL, *d_C = NULL;
    checkCudaErrors(cudaMalloc((void**)&d_A, size));
    checkCudaErrors(cudaMalloc((void**)&d_B, size));
    checkCudaErrors(cudaMalloc((void**)&d_C, size));
    checkCudaErrors(cudaMemcpy(d_A, h_A, size, cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(d_B, h_B, size, cudaMemcpyHostToDevice));

    int threadsPerBlock = 256;
    int blocksPerGrid = (numElements + threadsPerBlock - 1) / threadsPerBlock;
    vectorAdd<<<blocksPerGrid, threadsPerBlock>>>(d_A, d_B, d_C, numElements);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaMemcpy(h_C, d_C, size, cudaMemcpyDeviceToHost));

    for (int i = 0; i < numElements; ++i) {
        if (fabs(h_A[i] + h_B[i] - h_C[i]) > 1e-5) {
            fprintf(stderr, "Result verification failed at element %d!\n", i);
            exit(EXIT_FAILURE);
        }
    }
    cudaFree(d_A);
    cudaFree(d_B);
    cudaFree(d_C);
    free(h_A);
    free(h_B);
    free(h_C);
    printf("Test PASSED\n");
    return 0;
}

#ifdef PLAYGROUND_REFERENCE
static void vector_add_reference(const float* a, const float* b, float* c, int n)
{
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
#endif
