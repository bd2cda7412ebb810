// A kernel whose loop never ends: the host waits for it forever.
#include <cstdio>

__global__ void spin(volatile int* flag) {
    while (*flag == 0) {
    }
}

int main() {
    int* flag;
    cudaMalloc(&flag, sizeof(int));
    cudaMemset(flag, 0, sizeof(int));
    printf("launching\n");
    fflush(stdout);
    spin<<<1, 32>>>(flag);
    cudaDeviceSynchronize();
    printf("never printed\n");
    return 0;
}
