// Every launch the device's limits refuse, and the copies and frees CUDA refuses: which cudaError_t each gives.
#include <cstdio>
__global__ void k(int* p) { if (p) p[0] = 1; }
__global__ void big_shared(int* p) { extern __shared__ int s[]; s[threadIdx.x] = 1; if (p) p[0] = s[0]; }
#define TRY(label, ...) do { __VA_ARGS__; cudaError_t e = cudaGetLastError(); printf("%s: %d %s\n", label, (int)e, cudaGetErrorName(e)); } while (0)
int main() {
    TRY("block 2048", k<<<1, 2048>>>(0));
    TRY("block 1024x2", k<<<1, dim3(1024, 2)>>>(0));
    TRY("block z 65", k<<<1, dim3(1, 1, 65)>>>(0));
    TRY("block 0", k<<<1, 0>>>(0));
    TRY("grid 0", k<<<0, 32>>>(0));
    TRY("grid y 65536", k<<<dim3(1, 65536), 32>>>(0));
    TRY("grid x 2^31", k<<<dim3(2147483648u), 32>>>(0));
    TRY("shared 49153", big_shared<<<1, 32, 49153>>>(0));
    TRY("shared 300000", big_shared<<<1, 32, 300000>>>(0));
    TRY("ok", k<<<1, 32>>>(0));
    int* d; cudaMalloc(&d, 256);
    cudaError_t f1 = cudaFree((void*)((char*)d + 4));
    printf("free interior: %d %s\n", (int)f1, cudaGetErrorName(f1)); cudaGetLastError();
    int h[128];
    cudaError_t c1 = cudaMemcpy(h, d, 512, cudaMemcpyDeviceToHost);
    printf("copy past end: %d %s\n", (int)c1, cudaGetErrorName(c1)); cudaGetLastError();
    cudaError_t c2 = cudaMemcpy(h, h + 1, 4, (cudaMemcpyKind)7);
    printf("bad kind: %d %s\n", (int)c2, cudaGetErrorName(c2)); cudaGetLastError();
    cudaError_t s1 = cudaMemset(d, 0, 512);
    printf("memset past end: %d %s\n", (int)s1, cudaGetErrorName(s1)); cudaGetLastError();
    cudaError_t f2 = cudaFree(d);
    cudaError_t f3 = cudaFree(d);
    printf("free: %d, double free: %d %s\n", (int)f2, (int)f3, cudaGetErrorName(f3));
    return 0;
}
