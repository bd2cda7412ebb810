// A cooperative launch: every block writes its part, the whole grid waits (this_grid().sync()), then each thread
// reads what a thread of the next block wrote. cudaLaunchCooperativeKernel keeps all blocks on the GPU at once.
#include <cooperative_groups.h>
#include <cstdio>

namespace cg = cooperative_groups;

__global__ void rotate(const int* in, int* tmp, int* out, int n) {
    cg::grid_group grid = cg::this_grid();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) tmp[i] = in[i] * 2;
    grid.sync();
    if (i < n) out[i] = tmp[(i + blockDim.x) % n];
}

int main() {
    const int n = 4000, threads = 128, blocks = (n + threads - 1) / threads;
    static int h[n];
    for (int i = 0; i < n; i++) h[i] = i;
    int *d_in, *d_tmp, *d_out;
    cudaMalloc(&d_in, n * sizeof(int));
    cudaMalloc(&d_tmp, n * sizeof(int));
    cudaMalloc(&d_out, n * sizeof(int));
    cudaMemcpy(d_in, h, n * sizeof(int), cudaMemcpyHostToDevice);
    int count = n;
    void* args[] = {&d_in, &d_tmp, &d_out, &count};
    cudaError_t e = cudaLaunchCooperativeKernel(rotate, dim3(blocks), dim3(threads), args, 0, 0);
    printf("launch: %s\n", cudaGetErrorName(e));
    printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    cudaMemcpy(h, d_out, n * sizeof(int), cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < n; i++)
        if (h[i] != 2 * ((i + threads) % n)) wrong++;
    printf("out[0] = %d, out[%d] = %d: %s\n", h[0], n - 1, h[n - 1], wrong ? "FAIL" : "PASS");
    cudaFree(d_in);
    cudaFree(d_tmp);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
