/*@playground
title: float4 blend with a helper header of operators (pasted)
category: Pasted samples
about: Linear interpolation of float4 pixels through `__host__ __device__` operators from a helper header
  next to the file; the header's host-only printing function is left out of the device compile.
param n: int = 3001
param t: float = 0.25
param offset: float = 0.5
buffer a: float4[n] in random(seed=11, min=-1, max=1)
buffer b: float4[n] in random(seed=12, min=-1, max=1)
buffer out: float4[n] out zeros
block: 96
grid: ceil(n / block.x)
problem: n
reference: lerp_reference
tolerance: 1e-5
*/
#include "vec4_math.h"

__global__ void blendKernel(const float4* a, const float4* b, float4* out, float t, float offset, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Blend blend = {t, offset};
    out[i] = shifted(lerp(a[i], b[i], blend.weight), blend);
}

#ifdef PLAYGROUND_REFERENCE
static void lerp_reference(const float4* a, const float4* b, float4* out, float t, float offset, int n)
{
    for (int i = 0; i < n; ++i) {
        out[i].x = a[i].x + (b[i].x - a[i].x) * t + offset;
        out[i].y = a[i].y + (b[i].y - a[i].y) * t + offset;
        out[i].z = a[i].z + (b[i].z - a[i].z) * t + offset;
        out[i].w = a[i].w + (b[i].w - a[i].w) * t + offset;
    }
}
#endif
