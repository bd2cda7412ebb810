// Kernel times of a course-style program, measured by the program itself with CUDA events (median of 21 after a
// warm-up): tests/bench/program_timing.sh runs it built with nvcc -O2 and under the playground and compares.
#include <algorithm>
#include <cstdio>
#include <vector>

__global__ void vadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

template <int BLOCK>
__global__ void block_sums(const float* in, float* out, int n) {
    __shared__ float s[BLOCK];
    int i = blockIdx.x * BLOCK * 2 + threadIdx.x;
    float v = 0;
    if (i < n) v += in[i];
    if (i + BLOCK < n) v += in[i + BLOCK];
    s[threadIdx.x] = v;
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

__global__ void matmul(const float* a, const float* b, float* c, int n) {
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n || col >= n) return;
    float acc = 0;
    for (int k = 0; k < n; k++) acc += a[row * n + k] * b[k * n + col];
    c[row * n + col] = acc;
}

template <class Launch>
float median_ms(Launch launch) {
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    launch();  // warm-up
    std::vector<float> times;
    for (int r = 0; r < 21; r++) {
        cudaEventRecord(start);
        launch();
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        float ms = 0;
        cudaEventElapsedTime(&ms, start, stop);
        times.push_back(ms);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

int main() {
    const int n = 1 << 24, m = 1024;
    float *a, *b, *c;
    cudaMalloc(&a, n * sizeof(float));
    cudaMalloc(&b, n * sizeof(float));
    cudaMalloc(&c, n * sizeof(float));
    std::vector<float> h(n, 1.0f);
    cudaMemcpy(a, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(b, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    printf("vadd_16M %.4f ms\n", median_ms([&] { vadd<<<(n + 255) / 256, 256>>>(a, b, c, n); }));
    printf("block_sums_16M %.4f ms\n",
           median_ms([&] { block_sums<256><<<(n + 511) / 512, 256>>>(a, c, n); }));
    printf("matmul_1024 %.4f ms\n", median_ms([&] {
               matmul<<<dim3((m + 15) / 16, (m + 15) / 16), dim3(16, 16)>>>(a, b, c, m);
           }));
    cudaMemcpy(h.data(), c, sizeof(float), cudaMemcpyDeviceToHost);
    printf("check %.1f\n", h[0]);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    return 0;
}
