// Course-notes style, as first written: the bounds check is missing, so a size that is not a multiple of the
// block sends the last block's extra threads past the ends of the arrays.
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    c[i] = a[i] + b[i];
}
