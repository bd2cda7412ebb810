// CUDA's built-in vector types (char1..double4, with CUDA's sizes and alignments), dim3 and make_*().
// Part of the CPU backend's shim; like CUDA, no arithmetic operators are defined on them.
#pragma once

#define CP_SHIM_VEC1(T, N, A) \
    struct __attribute__((aligned(A))) N##1 { T x; }; \
    static inline N##1 make_##N##1(T x) { N##1 v; v.x = x; return v; }
#define CP_SHIM_VEC2(T, N, A) \
    struct __attribute__((aligned(A))) N##2 { T x, y; }; \
    static inline N##2 make_##N##2(T x, T y) { N##2 v; v.x = x; v.y = y; return v; }
#define CP_SHIM_VEC3(T, N, A) \
    struct __attribute__((aligned(A))) N##3 { T x, y, z; }; \
    static inline N##3 make_##N##3(T x, T y, T z) { N##3 v; v.x = x; v.y = y; v.z = z; return v; }
#define CP_SHIM_VEC4(T, N, A) \
    struct __attribute__((aligned(A))) N##4 { T x, y, z, w; }; \
    static inline N##4 make_##N##4(T x, T y, T z, T w) { N##4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
#define CP_SHIM_VECS(T, N, A1, A2, A3, A4) \
    CP_SHIM_VEC1(T, N, A1) CP_SHIM_VEC2(T, N, A2) CP_SHIM_VEC3(T, N, A3) CP_SHIM_VEC4(T, N, A4)

// Alignments as in CUDA's vector_types.h (the 3-component types are only element-aligned).
CP_SHIM_VECS(signed char, char, 1, 2, 1, 4)
CP_SHIM_VECS(unsigned char, uchar, 1, 2, 1, 4)
CP_SHIM_VECS(short, short, 2, 4, 2, 8)
CP_SHIM_VECS(unsigned short, ushort, 2, 4, 2, 8)
CP_SHIM_VECS(int, int, 4, 8, 4, 16)
CP_SHIM_VECS(unsigned int, uint, 4, 8, 4, 16)
CP_SHIM_VECS(long, long, 8, 16, 8, 16)
CP_SHIM_VECS(unsigned long, ulong, 8, 16, 8, 16)
CP_SHIM_VECS(long long, longlong, 8, 16, 8, 16)
CP_SHIM_VECS(unsigned long long, ulonglong, 8, 16, 8, 16)
CP_SHIM_VECS(float, float, 4, 8, 4, 16)
CP_SHIM_VECS(double, double, 8, 16, 8, 16)

#undef CP_SHIM_VECS
#undef CP_SHIM_VEC1
#undef CP_SHIM_VEC2
#undef CP_SHIM_VEC3
#undef CP_SHIM_VEC4

static_assert(sizeof(uchar4) == 4 && alignof(uchar4) == 4, "uchar4 must match CUDA's layout");
static_assert(sizeof(uchar3) == 3, "uchar3 must match CUDA's layout");
static_assert(sizeof(float3) == 12 && alignof(float3) == 4, "float3 must match CUDA's layout");
static_assert(sizeof(float4) == 16 && alignof(float4) == 16, "float4 must match CUDA's layout");
static_assert(sizeof(int2) == 8 && alignof(int2) == 8, "int2 must match CUDA's layout");

struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};
