// A check that fails ends the program with exit(), as course programs do.
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "CUDA error %s at line %d: %s\n", #call, __LINE__, cudaGetErrorString(e_)); \
            exit(3);                                                                       \
        }                                                                                  \
    } while (0)

int main() {
    int* d;
    CHECK(cudaMalloc(&d, 64 * sizeof(int)));
    int h[128];
    printf("copying too much\n");
    CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
    printf("not reached\n");
    return 0;
}
