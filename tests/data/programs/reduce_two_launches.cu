// Exercise 3: sum a large array in two launches: partial sums per block, then one block sums the partials.
#include <cstdio>
#include <vector>

const int BLOCK = 256;

__global__ void partial_sums(const int* in, int* partial, int n) {
    __shared__ int cache[BLOCK];
    int tid = threadIdx.x;
    int sum = 0;
    for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x) sum += in[i];
    cache[tid] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) cache[tid] += cache[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = cache[0];
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000000;
    int blocks = 120;
    std::vector<int> h(n);
    long long expect = 0;
    for (int i = 0; i < n; i++) {
        h[i] = (i * 7) % 13 - 6;
        expect += h[i];
    }
    h[100] = 1000;  // planted after the fill, as the exercise does
    expect += 1000 - ((100 * 7) % 13 - 6);
    int *d_in, *d_partial, *d_total;
    cudaMalloc(&d_in, n * sizeof(int));
    cudaMalloc(&d_partial, blocks * sizeof(int));
    cudaMalloc(&d_total, sizeof(int));
    cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    partial_sums<<<blocks, BLOCK>>>(d_in, d_partial, n);
    partial_sums<<<1, BLOCK>>>(d_partial, d_total, blocks);  // reduces the first launch's results
    int total = 0;
    cudaError_t err = cudaMemcpy(&total, d_total, sizeof(int), cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) {
        printf("copy failed: %s\n", cudaGetErrorString(err));
        return 1;
    }
    printf("n = %d, sum = %d, expected %lld\n", n, total, expect);
    printf(total == expect ? "reduction correct!\n" : "reduction WRONG\n");
    return total == expect ? 0 : 1;
}
