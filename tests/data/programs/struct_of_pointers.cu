// A struct of device pointers passed to the kernel by value.
#include <cstdio>
#include <cstdlib>

struct Particles {
    float* x;
    float* v;
    int count;
    float dt;
};

__global__ void step(Particles p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.count) p.x[i] += p.v[i] * p.dt;
}

int main() {
    Particles p;
    p.count = 1000;
    p.dt = 0.5f;
    size_t bytes = p.count * sizeof(float);
    float* hx = (float*)malloc(bytes);
    float* hv = (float*)malloc(bytes);
    for (int i = 0; i < p.count; i++) {
        hx[i] = (float)i;
        hv[i] = (float)(i % 4);
    }
    cudaMalloc(&p.x, bytes);
    cudaMalloc(&p.v, bytes);
    cudaMemcpy(p.x, hx, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(p.v, hv, bytes, cudaMemcpyHostToDevice);
    for (int s = 0; s < 3; s++) step<<<(p.count + 255) / 256, 256>>>(p);
    cudaMemcpy(hx, p.x, bytes, cudaMemcpyDeviceToHost);
    int ok = 1;
    for (int i = 0; i < p.count; i++)
        if (hx[i] != (float)i + 3 * 0.5f * (float)(i % 4)) ok = 0;
    printf("x[7] = %.2f\n", hx[7]);
    printf(ok ? "particles correct\n" : "particles WRONG\n");
    return !ok;
}
