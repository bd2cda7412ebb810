// A kernel that writes far past its allocation: the program sees the error CUDA gives for it at the next call that
// waits for the device, and every call after that returns it too (a faulted context's error is sticky).
#include <cstdio>

__global__ void scatter(int* p, long long stride) {
    p[threadIdx.x * stride] = 1;  // thread 0 writes p[0]; thread 1 lands 256 GiB further
}

int main() {
    int* d = nullptr;
    cudaMalloc(&d, 1024 * sizeof(int));
    scatter<<<1, 32>>>(d, 1LL << 36);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    const cudaError_t sync = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorName(sync));
    int h = 0;
    printf("copy: %s\n", cudaGetErrorName(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost)));
    printf("last: %s\n", cudaGetErrorName(cudaGetLastError()));
    int* more = nullptr;
    printf("malloc: %s\n", cudaGetErrorName(cudaMalloc(&more, 16)));
    return sync == cudaSuccess ? 0 : 2;
}
