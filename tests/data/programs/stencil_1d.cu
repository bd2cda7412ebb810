// Exercise 2: a 1D stencil with shared memory; the launch skips the halo with pointer arithmetic.
#include <cstdio>
#include <cstdlib>

#define RADIUS 3
#define BLOCK_SIZE 128
#define N (BLOCK_SIZE * 40)

__global__ void stencil_1d(const int* in, int* out) {
    __shared__ int temp[BLOCK_SIZE + 2 * RADIUS];
    int g = threadIdx.x + blockIdx.x * blockDim.x;
    int l = threadIdx.x + RADIUS;
    temp[l] = in[g];
    if (threadIdx.x < RADIUS) {
        temp[l - RADIUS] = in[g - RADIUS];
        temp[l + BLOCK_SIZE] = in[g + BLOCK_SIZE];
    }
    __syncthreads();
    int r = 0;
    for (int o = -RADIUS; o <= RADIUS; o++) r += temp[l + o];
    out[g] = r;
}

int main(void) {
    int size = (N + 2 * RADIUS) * sizeof(int);
    int* in = (int*)malloc(size);
    int* out = (int*)malloc(size);
    for (int i = 0; i < N + 2 * RADIUS; i++) in[i] = i % 10;
    int *d_in, *d_out;
    cudaMalloc((void**)&d_in, size);
    cudaMalloc((void**)&d_out, size);
    cudaMemcpy(d_in, in, size, cudaMemcpyHostToDevice);
    cudaMemcpy(d_out, in, size, cudaMemcpyHostToDevice);
    stencil_1d<<<N / BLOCK_SIZE, BLOCK_SIZE>>>(d_in + RADIUS, d_out + RADIUS);
    cudaMemcpy(out, d_out, size, cudaMemcpyDeviceToHost);
    for (int i = 0; i < N + 2 * RADIUS; i++) {
        int expect = 0;
        if (i < RADIUS || i >= N + RADIUS) expect = in[i];
        else
            for (int o = -RADIUS; o <= RADIUS; o++) expect += in[i + o];
        if (out[i] != expect) {
            printf("Mismatch at index %d, was: %d, should be: %d\n", i, out[i], expect);
            return -1;
        }
    }
    printf("Success!\n");
    return 0;
}
