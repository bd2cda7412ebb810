// Course-notes style: a 256-bin histogram of bytes with global atomics.
__global__ void histogram(unsigned char *data, unsigned int *bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[data[i]], 1);
}
