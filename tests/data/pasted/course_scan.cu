// Course-notes style: inclusive scan of each block's elements (Hillis-Steele), double-buffered in dynamic
// shared memory: two halves of blockDim.x floats, read from one and written to the other at each step.
__global__ void block_scan(float *input, float *output, int n)
{
    extern __shared__ float temp[];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    int pout = 0, pin = 1;
    temp[pout * blockDim.x + tid] = (i < n) ? input[i] : 0.0f;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (tid >= offset)
            temp[pout * blockDim.x + tid] = temp[pin * blockDim.x + tid] + temp[pin * blockDim.x + tid - offset];
        else
            temp[pout * blockDim.x + tid] = temp[pin * blockDim.x + tid];
        __syncthreads();
    }
    if (i < n)
        output[i] = temp[pout * blockDim.x + tid];
}
