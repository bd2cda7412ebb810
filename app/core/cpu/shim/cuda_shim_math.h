// CUDA's device math on the host: min/max overloads, the float functions CUDA adds to C's, the fast
// intrinsics (__expf, __fdividef...; computed at full precision here), conversions, bit tricks.
// Part of the CPU backend's shim.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <math.h>

// ---- min / max: the overloads CUDA's math_functions.hpp declares ----
static inline int min(int a, int b) { return a < b ? a : b; }
static inline unsigned int min(unsigned int a, unsigned int b) { return a < b ? a : b; }
static inline unsigned int min(int a, unsigned int b) { return min(static_cast<unsigned int>(a), b); }
static inline unsigned int min(unsigned int a, int b) { return min(a, static_cast<unsigned int>(b)); }
static inline long min(long a, long b) { return a < b ? a : b; }
static inline unsigned long min(unsigned long a, unsigned long b) { return a < b ? a : b; }
static inline long long min(long long a, long long b) { return a < b ? a : b; }
static inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static inline float min(float a, float b) { return std::fmin(a, b); }
static inline double min(double a, double b) { return std::fmin(a, b); }
static inline double min(float a, double b) { return std::fmin(static_cast<double>(a), b); }
static inline double min(double a, float b) { return std::fmin(a, static_cast<double>(b)); }
static inline int max(int a, int b) { return a > b ? a : b; }
static inline unsigned int max(unsigned int a, unsigned int b) { return a > b ? a : b; }
static inline unsigned int max(int a, unsigned int b) { return max(static_cast<unsigned int>(a), b); }
static inline unsigned int max(unsigned int a, int b) { return max(a, static_cast<unsigned int>(b)); }
static inline long max(long a, long b) { return a > b ? a : b; }
static inline unsigned long max(unsigned long a, unsigned long b) { return a > b ? a : b; }
static inline long long max(long long a, long long b) { return a > b ? a : b; }
static inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
static inline float max(float a, float b) { return std::fmax(a, b); }
static inline double max(double a, double b) { return std::fmax(a, b); }
static inline double max(float a, double b) { return std::fmax(static_cast<double>(a), b); }
static inline double max(double a, float b) { return std::fmax(a, static_cast<double>(b)); }
static inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
static inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
static inline long long llmin(long long a, long long b) { return a < b ? a : b; }
static inline long long llmax(long long a, long long b) { return a > b ? a : b; }
static inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

// ---- float functions CUDA has and C lacks ----
static inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
static inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
static inline float rcbrtf(float x) { return 1.0f / std::cbrt(x); }
static inline double rcbrt(double x) { return 1.0 / std::cbrt(x); }
static inline float sinpif(float x) { return std::sin(static_cast<float>(M_PI) * x); }
static inline float cospif(float x) { return std::cos(static_cast<float>(M_PI) * x); }
static inline double sinpi(double x) { return std::sin(M_PI * x); }
static inline double cospi(double x) { return std::cos(M_PI * x); }
static inline void sincospif(float x, float* s, float* c) { *s = sinpif(x); *c = cospif(x); }
static inline void sincospi(double x, double* s, double* c) { *s = sinpi(x); *c = cospi(x); }
static inline float fdividef(float a, float b) { return a / b; }
static inline float saturatef(float x) { return x != x ? 0.0f : (x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x)); }
static inline float normcdff(float x) { return 0.5f * std::erfc(-x * 0.70710678118654752f); }
static inline double normcdf(double x) { return 0.5 * std::erfc(-x * 0.70710678118654752440); }
static inline float norm3df(float a, float b, float c) { return std::sqrt(a * a + b * b + c * c); }
static inline float rnorm3df(float a, float b, float c) { return 1.0f / norm3df(a, b, c); }
static inline float norm4df(float a, float b, float c, float d) { return std::sqrt(a * a + b * b + c * c + d * d); }
static inline float rhypotf(float a, float b) { return 1.0f / std::hypot(a, b); }
static inline float erfinvf(float y) {
    // Newton steps on erf from a rational first guess (Giles' approximation): accurate to a few ulp.
    if (y <= -1.0f) return y == -1.0f ? -INFINITY : NAN;
    if (y >= 1.0f) return y == 1.0f ? INFINITY : NAN;
    double w = -std::log((1.0 - y) * (1.0 + y)), x;
    if (w < 5.0) {
        w -= 2.5;
        x = 2.81022636e-08; x = 3.43273939e-07 + x * w; x = -3.5233877e-06 + x * w;
        x = -4.39150654e-06 + x * w; x = 0.00021858087 + x * w; x = -0.00125372503 + x * w;
        x = -0.00417768164 + x * w; x = 0.246640727 + x * w; x = 1.50140941 + x * w;
    } else {
        w = std::sqrt(w) - 3.0;
        x = -0.000200214257; x = 0.000100950558 + x * w; x = 0.00134934322 + x * w;
        x = -0.00367342844 + x * w; x = 0.00573950773 + x * w; x = -0.0076224613 + x * w;
        x = 0.00943887047 + x * w; x = 1.00167406 + x * w; x = 2.83297682 + x * w;
    }
    x *= y;
    for (int i = 0; i < 2; ++i) x -= (std::erf(x) - y) / (1.1283791670955126 * std::exp(-x * x));
    return static_cast<float>(x);
}
static inline float erfcinvf(float y) { return erfinvf(1.0f - y); }

// ---- fast intrinsics: the same functions at full precision (documented in the backend's README) ----
static inline float cp_shim__expf(float x) { return std::exp(x); }
static inline float cp_shim__exp10f(float x) { return std::pow(10.0f, x); }
static inline float cp_shim__logf(float x) { return std::log(x); }
static inline float cp_shim__log2f(float x) { return std::log2(x); }
static inline float cp_shim__log10f(float x) { return std::log10(x); }
static inline float cp_shim__powf(float x, float y) { return std::pow(x, y); }
static inline float cp_shim__sinf(float x) { return std::sin(x); }
static inline float cp_shim__cosf(float x) { return std::cos(x); }
static inline float cp_shim__tanf(float x) { return std::tan(x); }
static inline void cp_shim__sincosf(float x, float* s, float* c) { *s = std::sin(x); *c = std::cos(x); }
// glibc declares some of these names itself (its internal aliases), so they are macros here.
#define __expf cp_shim__expf
#define __exp10f cp_shim__exp10f
#define __logf cp_shim__logf
#define __log2f cp_shim__log2f
#define __log10f cp_shim__log10f
#define __powf cp_shim__powf
#define __sinf cp_shim__sinf
#define __cosf cp_shim__cosf
#define __tanf cp_shim__tanf
#define __sincosf cp_shim__sincosf
static inline float __fdividef(float a, float b) { return a / b; }
static inline float __saturatef(float x) { return saturatef(x); }
static inline float __frcp_rn(float x) { return 1.0f / x; }
static inline float __fsqrt_rn(float x) { return std::sqrt(x); }
static inline float __frsqrt_rn(float x) { return 1.0f / std::sqrt(x); }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
static inline double __drcp_rn(double x) { return 1.0 / x; }
static inline double __dsqrt_rn(double x) { return std::sqrt(x); }

// ---- conversions and reinterpretation ----
static inline int __float2int_rn(float x) { return static_cast<int>(std::nearbyint(x)); }
static inline int __float2int_rz(float x) { return static_cast<int>(x); }
static inline int __float2int_ru(float x) { return static_cast<int>(std::ceil(x)); }
static inline int __float2int_rd(float x) { return static_cast<int>(std::floor(x)); }
static inline unsigned int __float2uint_rn(float x) { return static_cast<unsigned int>(std::nearbyint(x)); }
static inline unsigned int __float2uint_rz(float x) { return static_cast<unsigned int>(x); }
static inline unsigned int __float2uint_ru(float x) { return static_cast<unsigned int>(std::ceil(x)); }
static inline unsigned int __float2uint_rd(float x) { return static_cast<unsigned int>(std::floor(x)); }
static inline long long __float2ll_rn(float x) { return static_cast<long long>(std::nearbyint(x)); }
static inline long long __float2ll_rz(float x) { return static_cast<long long>(x); }
static inline int __double2int_rn(double x) { return static_cast<int>(std::nearbyint(x)); }
static inline int __double2int_rz(double x) { return static_cast<int>(x); }
static inline float __double2float_rn(double x) { return static_cast<float>(x); }
static inline float __int2float_rn(int x) { return static_cast<float>(x); }
static inline float __uint2float_rn(unsigned int x) { return static_cast<float>(x); }
static inline float __ll2float_rn(long long x) { return static_cast<float>(x); }
static inline double __int2double_rn(int x) { return static_cast<double>(x); }
static inline int __float_as_int(float x) { int r; std::memcpy(&r, &x, 4); return r; }
static inline unsigned int __float_as_uint(float x) { unsigned int r; std::memcpy(&r, &x, 4); return r; }
static inline float __int_as_float(int x) { float r; std::memcpy(&r, &x, 4); return r; }
static inline float __uint_as_float(unsigned int x) { float r; std::memcpy(&r, &x, 4); return r; }
static inline long long __double_as_longlong(double x) { long long r; std::memcpy(&r, &x, 8); return r; }
static inline double __longlong_as_double(long long x) { double r; std::memcpy(&r, &x, 8); return r; }
static inline int __double2hiint(double x) { return static_cast<int>(__double_as_longlong(x) >> 32); }
static inline int __double2loint(double x) { return static_cast<int>(__double_as_longlong(x)); }
static inline double __hiloint2double(int hi, int lo) {
    return __longlong_as_double(static_cast<long long>((static_cast<unsigned long long>(static_cast<unsigned int>(hi)) << 32) |
                                                       static_cast<unsigned int>(lo)));
}

// ---- integer intrinsics ----
static inline int __popc(unsigned int x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned int>(x)); }
static inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline unsigned int __brev(unsigned int x) {
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
    return __builtin_bswap32(x);
}
static inline unsigned long long __brevll(unsigned long long x) {
    return (static_cast<unsigned long long>(__brev(static_cast<unsigned int>(x))) << 32) | __brev(static_cast<unsigned int>(x >> 32));
}
static inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
    const unsigned long long bytes = (static_cast<unsigned long long>(y) << 32) | x;
    unsigned int r = 0;
    for (int i = 0; i < 4; ++i) r |= static_cast<unsigned int>((bytes >> (((s >> (4 * i)) & 7u) * 8)) & 0xFFu) << (8 * i);
    return r;
}
static inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
    const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
    return static_cast<unsigned int>((v << (shift & 31u)) >> 32);
}
static inline unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift) {
    const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
    return static_cast<unsigned int>((v << (shift > 32u ? 32u : shift)) >> 32);
}
static inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
    const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
    return static_cast<unsigned int>(v >> (shift & 31u));
}
static inline unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift) {
    const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
    return static_cast<unsigned int>(v >> (shift > 32u ? 32u : shift));
}
static inline int __mulhi(int a, int b) { return static_cast<int>((static_cast<long long>(a) * b) >> 32); }
static inline unsigned int __umulhi(unsigned int a, unsigned int b) {
    return static_cast<unsigned int>((static_cast<unsigned long long>(a) * b) >> 32);
}
static inline long long __mul64hi(long long a, long long b) { return static_cast<long long>((static_cast<__int128>(a) * b) >> 64); }
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
static inline int __mul24(int a, int b) { return ((a << 8) >> 8) * ((b << 8) >> 8); }
static inline unsigned int __umul24(unsigned int a, unsigned int b) { return (a & 0xFFFFFFu) * (b & 0xFFFFFFu); }
static inline int __hadd(int a, int b) { return static_cast<int>((static_cast<long long>(a) + b) >> 1); }
static inline int __rhadd(int a, int b) { return static_cast<int>((static_cast<long long>(a) + b + 1) >> 1); }
static inline unsigned int __uhadd(unsigned int a, unsigned int b) { return static_cast<unsigned int>((static_cast<unsigned long long>(a) + b) >> 1); }
static inline unsigned int __urhadd(unsigned int a, unsigned int b) {
    return static_cast<unsigned int>((static_cast<unsigned long long>(a) + b + 1) >> 1);
}
static inline unsigned int __sad(int a, int b, unsigned int c) { return c + static_cast<unsigned int>(a > b ? a - b : b - a); }
static inline unsigned int __usad(unsigned int a, unsigned int b, unsigned int c) { return c + (a > b ? a - b : b - a); }
