// Course-notes style: an exclusive scan of at most 256 values by one block, Hillis-Steele in shared memory.
__global__ void scan_block(float *g_odata, float *g_idata, int n)
{
    __shared__ float temp[256];
    int thid = threadIdx.x;
    temp[thid] = (thid > 0) ? g_idata[thid - 1] : 0;
    __syncthreads();
    for (int offset = 1; offset < n; offset *= 2) {
        float v = temp[thid];
        if (thid >= offset) v += temp[thid - offset];
        __syncthreads();
        temp[thid] = v;
        __syncthreads();
    }
    g_odata[thid] = temp[thid];
}
