/*@playground*/ __global__ void k(float*, int) {}
__global__ void k(float* a, int b);
