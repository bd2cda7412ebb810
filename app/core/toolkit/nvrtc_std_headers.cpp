// The in-memory standard headers for NVRTC (see the header for why).
#include "core/toolkit/nvrtc_std_headers.h"

namespace cp {

namespace {

constexpr const char* kEmptyStdio = "#pragma once\n// printf is built in to NVRTC.\n";
constexpr const char* kEmptyAssert = "#pragma once\n// assert is built in to NVRTC.\n";
// What device code may use of these (malloc, free, memcpy, memset) is built in to NVRTC. The host's functions
// (system, exit, getenv, rand, strlen...) are not declared: a kernel that calls one is told that the identifier
// is undefined at the call, where without the header it was told only that the header cannot be opened.
constexpr const char* kEmptyStdlib = "#pragma once\n// malloc and free are built in to NVRTC; host functions are not.\n";
constexpr const char* kEmptyString = "#pragma once\n// memcpy and memset are built in to NVRTC; host functions are not.\n";

// The definitions match libcu++'s NVRTC branch token for token, so a kernel may include both <cstdint>
// and <cuda/std/cstdint> without redefinition errors or warnings.
constexpr const char* kLimits = R"(#pragma once
#define CHAR_BIT 8
#define SCHAR_MIN (-128)
#define SCHAR_MAX 127
#define UCHAR_MAX 255
#define CHAR_MIN SCHAR_MIN
#define CHAR_MAX SCHAR_MAX
#define SHRT_MIN (-SHRT_MAX - 1)
#define SHRT_MAX 0x7fff
#define USHRT_MAX 0xffff
#define INT_MIN (-INT_MAX - 1)
#define INT_MAX 0x7fffffff
#define UINT_MAX 0xffffffff
#define LONG_MIN (-LONG_MAX - 1)
#ifdef __LP64__
#define LONG_MAX LLONG_MAX
#define ULONG_MAX ULLONG_MAX
#else
#define LONG_MAX INT_MAX
#define ULONG_MAX UINT_MAX
#endif
#define LLONG_MIN (-LLONG_MAX - 1)
#define LLONG_MAX 0x7fffffffffffffffLL
#define ULLONG_MAX 0xffffffffffffffffUL
)";

constexpr const char* kStdint = R"(#pragma once
#include <climits>
using int8_t = signed char;
using int16_t = signed short;
using int32_t = signed int;
using int64_t = signed long long;
using uint8_t = unsigned char;
using uint16_t = unsigned short;
using uint32_t = unsigned int;
using uint64_t = unsigned long long;
using intptr_t = int64_t;
using uintptr_t = uint64_t;
using intmax_t = int64_t;
using uintmax_t = uint64_t;
#define INT8_MIN SCHAR_MIN
#define INT16_MIN SHRT_MIN
#define INT32_MIN INT_MIN
#define INT64_MIN LLONG_MIN
#define INT8_MAX SCHAR_MAX
#define INT16_MAX SHRT_MAX
#define INT32_MAX INT_MAX
#define INT64_MAX LLONG_MAX
#define UINT8_MAX UCHAR_MAX
#define UINT16_MAX USHRT_MAX
#define UINT32_MAX UINT_MAX
#define UINT64_MAX ULLONG_MAX
namespace std {
using ::int8_t; using ::int16_t; using ::int32_t; using ::int64_t;
using ::uint8_t; using ::uint16_t; using ::uint32_t; using ::uint64_t;
using ::intptr_t; using ::uintptr_t; using ::intmax_t; using ::uintmax_t;
}
)";

constexpr const char* kFloat = R"(#pragma once
#define FLT_MAX 3.402823466e+38F
#define FLT_MIN 1.175494351e-38F
#define FLT_EPSILON 1.192092896e-07F
#define FLT_DIG 6
#define FLT_MANT_DIG 24
#define DBL_MAX 1.7976931348623158e+308
#define DBL_MIN 2.2250738585072014e-308
#define DBL_EPSILON 2.2204460492503131e-016
#define DBL_DIG 15
#define DBL_MANT_DIG 53
)";

constexpr const char* kMath = R"(#pragma once
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fffffff)
#endif
#ifdef __cplusplus
namespace std {
using ::sqrt; using ::cbrt; using ::abs; using ::fabs; using ::floor; using ::ceil; using ::round; using ::trunc;
using ::exp; using ::exp2; using ::log; using ::log2; using ::log10; using ::pow;
using ::sin; using ::cos; using ::tan; using ::asin; using ::acos; using ::atan; using ::atan2;
using ::sinh; using ::cosh; using ::tanh; using ::fmin; using ::fmax; using ::fmod; using ::hypot;
using ::isnan; using ::isinf; using ::isfinite; using ::signbit; using ::copysign; using ::erf;
}
#endif
)";

constexpr const char* kAlgorithm = R"(#pragma once
// std::min and std::max for device code: the CUDA built-in overloads of ::min and ::max.
namespace std {
using ::min; using ::max;
}
)";

}  // namespace

const std::vector<InMemoryHeader>& nvrtc_std_headers() {
    static const std::vector<InMemoryHeader> headers = {
        {"cstdio", kEmptyStdio}, {"stdio.h", kEmptyStdio}, {"cassert", kEmptyAssert}, {"assert.h", kEmptyAssert},
        {"cstdint", kStdint},    {"stdint.h", kStdint},    {"climits", kLimits},      {"limits.h", kLimits},
        {"cfloat", kFloat},      {"float.h", kFloat},      {"cmath", kMath},          {"math.h", kMath},
        {"algorithm", kAlgorithm}, {"cstdlib", kEmptyStdlib}, {"stdlib.h", kEmptyStdlib}, {"cstring", kEmptyString},
        {"string.h", kEmptyString},
    };
    return headers;
}

}  // namespace cp
