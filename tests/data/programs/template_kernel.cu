// One template kernel launched for two element types, one with its type written and one deduced.
#include <cstdio>

template <typename T>
__global__ void axpy(T a, const T* x, T* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

template <typename T>
bool run(T a, const char* name) {
    const int n = 3000;
    T hx[n], hy[n];
    for (int i = 0; i < n; i++) {
        hx[i] = T(i % 10);
        hy[i] = T(1);
    }
    T *dx, *dy;
    cudaMalloc(&dx, n * sizeof(T));
    cudaMalloc(&dy, n * sizeof(T));
    cudaMemcpy(dx, hx, n * sizeof(T), cudaMemcpyHostToDevice);
    cudaMemcpy(dy, hy, n * sizeof(T), cudaMemcpyHostToDevice);
    axpy<T><<<(n + 127) / 128, 128>>>(a, dx, dy, n);
    axpy<<<(n + 127) / 128, 128>>>(a, dx, dy, n);  // deduced
    cudaMemcpy(hy, dy, n * sizeof(T), cudaMemcpyDeviceToHost);
    bool ok = true;
    for (int i = 0; i < n; i++)
        if (hy[i] != T(1) + T(2) * a * T(i % 10)) ok = false;
    printf("%s: y[9] = %g %s\n", name, (double)hy[9], ok ? "ok" : "WRONG");
    cudaFree(dx);
    cudaFree(dy);
    return ok;
}

int main() {
    bool ok = run<float>(1.5f, "float") && run<int>(3, "int");
    std::printf(ok ? "Result = PASS\n" : "Result = FAIL\n");  // std:: as well as plain printf
    return ok ? 0 : 1;
}
