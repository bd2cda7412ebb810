__global__ void plain(float* out, int n) { out[0] = n; }
