// Course-notes style: the host launches exactly one thread per element (N a multiple of the block), so the
// kernel takes no size and has no bounds check.
__global__ void add(int *a, int *b, int *c)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    c[tid] = a[tid] + b[tid];
}
