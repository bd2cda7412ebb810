// Course-notes style: C = A * B with 16x16 tiles in shared memory. A is m x k, B is k x n, all row-major.
// As in the notes, there is no bounds check: m, k and n must be multiples of TILE_WIDTH.
#define TILE_WIDTH 16

__global__ void matmul_tiled(float *A, float *B, float *C, int m, int k, int n)
{
    __shared__ float As[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Bs[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE_WIDTH + ty;
    int col = blockIdx.x * TILE_WIDTH + tx;
    float acc = 0.0f;
    for (int t = 0; t < k / TILE_WIDTH; ++t) {
        As[ty][tx] = A[row * k + t * TILE_WIDTH + tx];
        Bs[ty][tx] = B[(t * TILE_WIDTH + ty) * n + col];
        __syncthreads();
        for (int i = 0; i < TILE_WIDTH; ++i)
            acc += As[ty][i] * Bs[i][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}
