// The host code reads through a pointer it never set.
#include <cstdio>

__global__ void noop() {}

int main() {
    noop<<<1, 1>>>();
    cudaDeviceSynchronize();
    printf("before the crash\n");
    int* table = nullptr;
    int n = 3;
    printf("value: %d\n", table[n]);
    return 0;
}
