/*@playground
title: Scale and bias, the whole sample program (pasted)
category: Pasted samples
about: A sample file pasted whole: host globals (one initialised at start-up), a template function that
  launches the kernel, and main(). The playground runs the kernel from this header; the host code is left out.
param n: int = 10007
param scale: float = 1.5
param bias: float = -0.25
buffer d_in: float[n] in random(seed=5, min=-2, max=2)
buffer d_out: float[n] out zeros
kernel: scaleBias<128>
block: 128
grid: ceil(n / block.x)
problem: n
reference: scale_bias_reference
tolerance: 1e-6
*/
// Sample-style program: every element is scaled and shifted, block size chosen at compile time.
#include <stdio.h>
#include <stdlib.h>
#include <vector>
#include <cuda_runtime.h>
#include <helper_cuda.h>

#define DEFAULT_N (1 << 20)

// Host globals, as samples keep them: plain, and initialised dynamically at start-up.
static int g_repeat = 3;
float* d_buffer = NULL;
std::vector<float> h_data(1024);
const char* sampleName = "scaleBias";

template <int BLOCK>
__global__ void scaleBias(const float* d_in, float* d_out, float scale, float bias, int n)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) d_out[i] = d_in[i] * scale + bias;
}

// The host-side launcher the sample calls with the block size it picked.
template <int BLOCK>
void launchScaleBias(const float* in, float* out, float scale, float bias, int n, cudaStream_t stream)
{
    dim3 threads(BLOCK);
    dim3 blocks((n + BLOCK - 1) / BLOCK);
    scaleBias<BLOCK><<<blocks, threads, 0, stream>>>(in, out, scale, bias, n);
    getLastCudaError("scaleBias failed");
}

static double checksum(const std::vector<float>& v)
{
    double s = 0;
    for (float x : v) s += x;
    return s;
}

int main(int argc, char** argv)
{
    printf("%s starting...\n", sampleName);
    int n = DEFAULT_N;
    h_data.resize(n);
    for (int i = 0; i < n; ++i) h_data[i] = (float)rand() / RAND_MAX;
    float* d_out = NULL;
    checkCudaErrors(cudaMalloc((void**)&d_buffer, n * sizeof(float)));
    checkCudaErrors(cudaMalloc((void**)&d_out, n * sizeof(float)));
    checkCudaErrors(cudaMemcpy(d_buffer, h_data.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    for (int r = 0; r < g_repeat; ++r) launchScaleBias<128>(d_buffer, d_out, 1.5f, -0.25f, n, 0);
    checkCudaErrors(cudaMemcpy(h_data.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    printf("checksum %f\n", checksum(h_data));
    cudaFree(d_buffer);
    cudaFree(d_out);
    return 0;
}

#ifdef PLAYGROUND_REFERENCE
static void scale_bias_reference(const float* d_in, float* d_out, float scale, float bias, int n)
{
    for (int i = 0; i < n; ++i) d_out[i] = d_in[i] * scale + bias;
}
#endif
