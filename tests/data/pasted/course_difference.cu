// Course-notes style: forward difference, out[i] = in[i + 1] - in[i]. It reads one element past i.
__global__ void forward_difference(float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i + 1] - in[i];
}
