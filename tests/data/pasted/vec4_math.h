// Helper header in the style of samples' math helpers: float4 operators usable on host and device, a
// device-only helper, a struct, and a host-only printing function that a device compile cannot use.
#ifndef VEC4_MATH_H
#define VEC4_MATH_H

#include <stdio.h>
#include <cuda_runtime.h>

struct Blend {
    float weight;
    float offset;
};

inline __host__ __device__ float4 operator+(float4 a, float4 b)
{
    return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

inline __host__ __device__ float4 operator-(float4 a, float4 b)
{
    return make_float4(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w);
}

inline __host__ __device__ float4 operator*(float4 a, float s) { return make_float4(a.x * s, a.y * s, a.z * s, a.w * s); }

inline __host__ __device__ float4 lerp(float4 a, float4 b, float t) { return a + (b - a) * t; }

__device__ inline float4 shifted(float4 v, Blend b)
{
    return make_float4(v.x + b.offset, v.y + b.offset, v.z + b.offset, v.w + b.offset);
}

inline void printFloat4(const char* label, float4 v)
{
    printf("%s = (%f, %f, %f, %f)\n", label, v.x, v.y, v.z, v.w);
}

#endif
