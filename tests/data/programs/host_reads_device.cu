// The host code reads the kernel's output through the device pointer, forgetting to copy it back first.
#include <cstdio>

__global__ void squares(int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i * i;
}

int main() {
    const int n = 300;
    int* d_out;
    cudaMalloc(&d_out, n * sizeof(int));
    squares<<<(n + 127) / 128, 128>>>(d_out, n);
    cudaDeviceSynchronize();
    printf("launched\n");
    fflush(stdout);
    printf("last square: %d\n", d_out[n - 1]);  // a device pointer read on the host
    cudaFree(d_out);
    return 0;
}
