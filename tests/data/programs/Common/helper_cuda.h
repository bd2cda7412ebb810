// Test data in the style of the helper header NVIDIA's samples include (written for the playground's tests; no
// code of NVIDIA's): checkCudaErrors() reports a failed call with its file and line and exits, findCudaDevice()
// picks device 0 or the one `-device=N` names and prints it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>

template <typename T>
void report_cuda_result(T result, const char* call, const char* file, int line) {
    if (result) {
        fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\"\n", file, line, static_cast<int>(result),
                cudaGetErrorName(result), call);
        exit(EXIT_FAILURE);
    }
}
#define checkCudaErrors(val) report_cuda_result((val), #val, __FILE__, __LINE__)

inline int findCudaDevice(int argc, const char** argv) {
    int device = 0;
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], "-device=", 8) == 0) device = atoi(argv[i] + 8);
    int count = 0;
    checkCudaErrors(cudaGetDeviceCount(&count));
    if (device < 0 || device >= count) {
        fprintf(stderr, "no device %d (there are %d)\n", device, count);
        exit(EXIT_FAILURE);
    }
    checkCudaErrors(cudaSetDevice(device));
    printf("GPU Device %d selected\n", device);
    return device;
}
