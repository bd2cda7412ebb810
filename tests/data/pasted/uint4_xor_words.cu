/*@playground
title: XOR of 128-bit words held in uint4 (pasted)
category: Pasted samples
about: Each thread loads one uint4 (16 bytes) from each input and writes their XOR, the vectorised load
  samples use for bandwidth; uint4 buffers are filled like int4 ones.
param n: int = 4099
buffer a: uint4[n] in random(seed=31, min=0, max=4000000000)
buffer b: uint4[n] in random(seed=32, min=0, max=4000000000)
buffer c: uint4[n] out zeros
block: 128
grid: ceil(n / block.x)
problem: n
reference: xor_reference
tolerance: 0
*/
__global__ void xorWords(const uint4* a, const uint4* b, uint4* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        uint4 x = a[i], y = b[i];
        c[i] = make_uint4(x.x ^ y.x, x.y ^ y.y, x.z ^ y.z, x.w ^ y.w);
    }
}

#ifdef PLAYGROUND_REFERENCE
static void xor_reference(const uint4* a, const uint4* b, uint4* c, int n)
{
    for (int i = 0; i < n; ++i) {
        c[i].x = a[i].x ^ b[i].x;
        c[i].y = a[i].y ^ b[i].y;
        c[i].z = a[i].z ^ b[i].z;
        c[i].w = a[i].w ^ b[i].w;
    }
}
#endif
