// The CUDA shim: force-included (-include) before a kernel compiled by the host C++ compiler for the CPU
// backend. It provides what kernels use (qualifiers, built-in variables, vector types, barriers, warp
// operations, atomics, math, printf, assert) on top of the host calls in cp_shim_abi.h.
//
// Sections: system headers - qualifiers - thread state and built-in variables - host calls
// (barriers, warp operations, printf, assert) - the launch glue the backend's generated entry points use.
#pragma once

#include <cassert>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

#include "cp_shim_abi.h"
#include "cuda_shim_types.h"
#include "cuda_shim_math.h"
#include "cuda_shim_atomics.h"

// ---- qualifiers ----
#define __CUDACC__ 1
#define __CUDA_ARCH__ 800
#define __CUDA_PLAYGROUND_CPU__ 1
#define __global__
#define __device__
#define __host__
#define __noinline__ __attribute__((noinline))
#define __forceinline__ inline __attribute__((always_inline))
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __constant__
#define __grid_constant__
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __attribute__((aligned(n)))
#define __cudart_builtin__
#define __device_builtin__
// Threads of a block share a worker OS thread and a block never moves to another one, so per-OS-thread
// storage is per-block storage. The backend rewrites `extern __shared__` and static `__shared__` arrays
// before compiling (to guarded memory, source_prep.cpp); what is left (scalars, declarations made by macros
// or in included headers) is thread-local.
#define __shared__ static thread_local

// ---- thread state and the built-in variables ----
namespace cp_shim {
static thread_local cp_abi::ThreadState state_storage;
// The state's address is fixed for an OS thread and a block never leaves its OS thread, so the lookup is
// `const`: the compiler may do it once per function instead of once per access (a dlopen'ed library's
// thread-local variables cost a call to __tls_get_addr each time otherwise).
__attribute__((const, noinline)) static cp_abi::ThreadState* state_ptr() { return &state_storage; }
#define CP_SHIM_STATE (*::cp_shim::state_ptr())

static inline const uint3& thread_idx() { return *reinterpret_cast<const uint3*>(&CP_SHIM_STATE.thread_idx); }
static inline const uint3& block_idx() { return *reinterpret_cast<const uint3*>(&CP_SHIM_STATE.block_idx); }
static inline const dim3& block_dim() { return *reinterpret_cast<const dim3*>(&CP_SHIM_STATE.block_dim); }
static inline const dim3& grid_dim() { return *reinterpret_cast<const dim3*>(&CP_SHIM_STATE.grid_dim); }
static inline void* dynamic_shared() { return CP_SHIM_STATE.dynamic_shared; }
}  // namespace cp_shim

#define threadIdx (::cp_shim::thread_idx())
#define blockIdx (::cp_shim::block_idx())
#define blockDim (::cp_shim::block_dim())
#define gridDim (::cp_shim::grid_dim())
static constexpr int warpSize = 32;

// ---- host calls ----
namespace cp_shim {
// The asm statements tell the compiler that any memory (shared arrays included) may change across a
// barrier, where other threads of the block run.
static inline int sync_threads(int kind, int predicate, int line) {
    __asm__ __volatile__("" ::: "memory");
    const int r = CP_SHIM_STATE.host->sync_threads(CP_SHIM_STATE.block, kind, predicate, line);
    __asm__ __volatile__("" ::: "memory");
    return r;
}
static inline unsigned long long warp_call(int op, unsigned mask, unsigned long long value, int lane_arg, int width,
                                           int line) {
    const cp_abi::WarpRequest request{op, mask, value, lane_arg, width, line};
    __asm__ __volatile__("" ::: "memory");
    const unsigned long long r = CP_SHIM_STATE.host->warp_op(CP_SHIM_STATE.block, &request);
    __asm__ __volatile__("" ::: "memory");
    return r;
}
template <class T>
static inline unsigned long long to_bits(T value) {
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value, "warp operations take values of at most 8 bytes");
    unsigned long long bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    return bits;
}
template <class T>
static inline T from_bits(unsigned long long bits) {
    T value;
    std::memcpy(&value, &bits, sizeof(T));
    return value;
}
template <class T>
static inline T shuffle(int op, int line, unsigned mask, T var, int lane_arg, int width) {
    return from_bits<T>(warp_call(op, mask, to_bits(var), lane_arg, width, line));
}
template <class T>
static inline unsigned match_all(int line, unsigned mask, T value, int* predicate) {
    const unsigned r = static_cast<unsigned>(warp_call(cp_abi::kMatchAll, mask, to_bits(value), 0, 32, line));
    *predicate = r != 0;
    return r;
}
template <class T>
static inline T reduce(int op_unsigned, int op_signed, int line, unsigned mask, T value) {
    static_assert(sizeof(T) == 4, "__reduce_*_sync takes int or unsigned int");
    const int op = std::is_signed<T>::value ? op_signed : op_unsigned;
    const unsigned long long bits = std::is_signed<T>::value
                                        ? static_cast<unsigned long long>(static_cast<long long>(value))
                                        : static_cast<unsigned long long>(value);
    return static_cast<T>(warp_call(op, mask, bits, 0, 32, line));
}
[[noreturn]] static inline void fail(int kind, const char* what, int line) {
    CP_SHIM_STATE.host->fail(CP_SHIM_STATE.block, kind, what, line);
    __builtin_unreachable();  // the host never returns from fail()
}
// What a value holds, for the debugger and the __shared__ arrays' views: its kind and, for the vector types
// (float4: 4 floats), the component's size.
template <class T, class = void>
struct value_traits {
    static constexpr int kind = std::is_same<T, bool>::value              ? cp_abi::kValueBool
                                : std::is_floating_point<T>::value        ? cp_abi::kValueFloat
                                : std::is_pointer<T>::value               ? cp_abi::kValuePointer
                                : std::is_integral<T>::value && std::is_signed<T>::value ? cp_abi::kValueSigned
                                : std::is_integral<T>::value || std::is_enum<T>::value   ? cp_abi::kValueUnsigned
                                                                                          : cp_abi::kValueOther;
    static constexpr unsigned element_size = sizeof(T);
};
template <class T>
struct value_traits<T, std::enable_if_t<std::is_class<T>::value && std::is_arithmetic<decltype(T::x)>::value &&
                                        sizeof(T) % sizeof(decltype(T::x)) == 0>> {
    static constexpr int kind = value_traits<decltype(T::x)>::kind;
    static constexpr unsigned element_size = sizeof(decltype(T::x));
};
template <class P>
struct pointee_traits {
    static constexpr int kind = cp_abi::kValueOther;
    static constexpr unsigned size = 1;
};
template <class P>
struct pointee_traits<P*> {
    using E = std::remove_cv_t<P>;
    static constexpr bool plain = !std::is_void<E>::value && !std::is_function<E>::value;
    static constexpr int kind = plain ? value_traits<std::conditional_t<plain, E, char>>::kind : cp_abi::kValueOther;
    static constexpr unsigned size = plain ? unsigned(value_traits<std::conditional_t<plain, E, char>>::element_size) : 1u;
};
template <class T>
inline cp_abi::DebugValue debug_value(const T& value) {
    using E = std::remove_cv_t<std::remove_all_extents_t<T>>;
    const unsigned element = value_traits<E>::element_size;
    return {value_traits<E>::kind, element, unsigned(sizeof(T) / element), unsigned(sizeof(T)),
            static_cast<const void*>(&value), pointee_traits<E>::kind, pointee_traits<E>::size};
}
// The debugger's probe before a statement (core/cpu/debug_instrument.h inserts the calls).
template <class... T>
inline void dbg_step(int line, const char* names, const T&... values) {
    cp_abi::ThreadState& state = CP_SHIM_STATE;
    if (!state.host || !state.host->debug_step) return;
    const cp_abi::DebugValue described[sizeof...(T) + 1] = {debug_value(values)..., cp_abi::DebugValue{}};
    state.host->debug_step(state.block, line, names, described, unsigned(sizeof...(T)));
}
template <class T>
using same_type = T;  // `same_type<float[32][33]> name;` declares an array from a type-id
// A static `__shared__` array (`__shared__ float tile[32][33];` becomes `auto& tile = shared_slot<float[32][33],
// A>(id, "tile");`, source_prep.cpp): the worker's storage for it, ending at a guard page so that an index
// past its end faults and is reported. `Align` is the declaration's __align__ or, in kernels that use
// 16-byte vector types, 16.
template <class T, unsigned Align>
static inline T& shared_slot(unsigned id, const char* name) {
    cp_abi::ThreadState& state = CP_SHIM_STATE;
    if (__builtin_expect(id < state.shared_slot_count && state.shared_slots[id].bytes == sizeof(T), 1))
        return *static_cast<T*>(state.shared_slots[id].data);
    constexpr unsigned align = alignof(T) > Align ? unsigned(alignof(T)) : Align;
    static constexpr unsigned long long extents[4] = {std::extent<T, 0>::value, std::extent<T, 1>::value,
                                                      std::extent<T, 2>::value, std::extent<T, 3>::value};
    void* data = state.host->shared_slot(state.shared_owner, id, sizeof(T), align,
                                         unsigned(sizeof(std::remove_all_extents_t<T>)),
                                         value_traits<std::remove_all_extents_t<T>>::kind, name, extents,
                                         unsigned(std::rank<T>::value));
    if (!data) fail(cp_abi::kUnsupported, "no memory for a __shared__ array", 0);
    return *static_cast<T*>(data);
}
static inline int device_vprintf(const char* format, va_list args) {
    char text[1024];
    if (!CP_SHIM_STATE.block) return std::vprintf(format, args);  // a program's host code: its own standard output
    va_list again;
    va_copy(again, args);
    const int n = std::vsnprintf(text, sizeof text, format, args);
    if (n >= 0 && static_cast<size_t>(n) < sizeof text) {
        CP_SHIM_STATE.host->print(CP_SHIM_STATE.block, text, static_cast<size_t>(n));
    } else if (n >= 0) {
        char* long_text = static_cast<char*>(std::malloc(static_cast<size_t>(n) + 1));
        if (long_text) {
            std::vsnprintf(long_text, static_cast<size_t>(n) + 1, format, again);
            CP_SHIM_STATE.host->print(CP_SHIM_STATE.block, long_text, static_cast<size_t>(n));
            std::free(long_text);
        }
    }
    va_end(again);
    return n;
}
__attribute__((format(printf, 1, 2))) static inline int device_printf(const char* format, ...) {
    va_list args;
    va_start(args, format);
    const int n = device_vprintf(format, args);
    va_end(args);
    return n;
}
}  // namespace cp_shim

// What `printf` means in kernel code (and a program's host code), also as `std::printf` and `::printf`.
__attribute__((format(printf, 1, 2))) static inline int cp_shim_printf(const char* format, ...) {
    va_list args;
    va_start(args, format);
    const int n = ::cp_shim::device_vprintf(format, args);
    va_end(args);
    return n;
}
namespace std {
using ::cp_shim_printf;
}

extern "C" [[noreturn]] void cp_shim_assert_fail(const char* expression, int line) {
    if (!CP_SHIM_STATE.block) {  // a program's host code: as the C library's assert, a message and abort()
        std::fprintf(stderr, "Assertion `%s' failed (line %d).\n", expression, line);
        std::fflush(stderr);
        std::abort();
    }
    ::cp_shim::fail(cp_abi::kAssert, expression, line);
}

#define __syncthreads() ((void)::cp_shim::sync_threads(::cp_abi::kSyncThreads, 1, __LINE__))
#define __syncthreads_count(p) ::cp_shim::sync_threads(::cp_abi::kSyncThreadsCount, (p) ? 1 : 0, __LINE__)
#define __syncthreads_and(p) ::cp_shim::sync_threads(::cp_abi::kSyncThreadsAnd, (p) ? 1 : 0, __LINE__)
#define __syncthreads_or(p) ::cp_shim::sync_threads(::cp_abi::kSyncThreadsOr, (p) ? 1 : 0, __LINE__)

namespace cp_shim {
// `__syncwarp()` and `__syncwarp(mask)`: the macro records the line, the call takes the optional mask.
struct SyncWarpAt {
    int line;
    void operator()(unsigned mask = 0xffffffffu) const { warp_call(cp_abi::kSyncWarp, mask, 0, 0, 32, line); }
};
}  // namespace cp_shim
#define __syncwarp(...) (::cp_shim::SyncWarpAt{__LINE__}(__VA_ARGS__))
#define __activemask() (static_cast<unsigned>(::cp_shim::warp_call(::cp_abi::kActiveMask, 0u, 0, 0, 32, __LINE__)))

template <class T>
static inline T cp_shim_shfl(int line, unsigned mask, T var, int src_lane, int width = 32) {
    return ::cp_shim::shuffle(cp_abi::kShfl, line, mask, var, src_lane, width);
}
template <class T>
static inline T cp_shim_shfl_up(int line, unsigned mask, T var, unsigned delta, int width = 32) {
    return ::cp_shim::shuffle(cp_abi::kShflUp, line, mask, var, static_cast<int>(delta), width);
}
template <class T>
static inline T cp_shim_shfl_down(int line, unsigned mask, T var, unsigned delta, int width = 32) {
    return ::cp_shim::shuffle(cp_abi::kShflDown, line, mask, var, static_cast<int>(delta), width);
}
template <class T>
static inline T cp_shim_shfl_xor(int line, unsigned mask, T var, int lane_mask, int width = 32) {
    return ::cp_shim::shuffle(cp_abi::kShflXor, line, mask, var, lane_mask, width);
}
#define __shfl_sync(...) cp_shim_shfl(__LINE__, __VA_ARGS__)
#define __shfl_up_sync(...) cp_shim_shfl_up(__LINE__, __VA_ARGS__)
#define __shfl_down_sync(...) cp_shim_shfl_down(__LINE__, __VA_ARGS__)
#define __shfl_xor_sync(...) cp_shim_shfl_xor(__LINE__, __VA_ARGS__)
#define __all_sync(mask, p) static_cast<int>(::cp_shim::warp_call(::cp_abi::kVoteAll, (mask), (p) ? 1 : 0, 0, 32, __LINE__))
#define __any_sync(mask, p) static_cast<int>(::cp_shim::warp_call(::cp_abi::kVoteAny, (mask), (p) ? 1 : 0, 0, 32, __LINE__))
#define __ballot_sync(mask, p) static_cast<unsigned>(::cp_shim::warp_call(::cp_abi::kBallot, (mask), (p) ? 1 : 0, 0, 32, __LINE__))
#define __match_any_sync(mask, v) \
    static_cast<unsigned>(::cp_shim::warp_call(::cp_abi::kMatchAny, (mask), ::cp_shim::to_bits(v), 0, 32, __LINE__))
#define __match_all_sync(mask, v, pred) ::cp_shim::match_all(__LINE__, (mask), (v), (pred))
#define __reduce_add_sync(mask, v) ::cp_shim::reduce(::cp_abi::kReduceAdd, ::cp_abi::kReduceAddSigned, __LINE__, (mask), (v))
#define __reduce_min_sync(mask, v) ::cp_shim::reduce(::cp_abi::kReduceMin, ::cp_abi::kReduceMinSigned, __LINE__, (mask), (v))
#define __reduce_max_sync(mask, v) ::cp_shim::reduce(::cp_abi::kReduceMax, ::cp_abi::kReduceMaxSigned, __LINE__, (mask), (v))
#define __reduce_and_sync(mask, v) static_cast<unsigned>(::cp_shim::warp_call(::cp_abi::kReduceAnd, (mask), (v), 0, 32, __LINE__))
#define __reduce_or_sync(mask, v) static_cast<unsigned>(::cp_shim::warp_call(::cp_abi::kReduceOr, (mask), (v), 0, 32, __LINE__))
#define __reduce_xor_sync(mask, v) static_cast<unsigned>(::cp_shim::warp_call(::cp_abi::kReduceXor, (mask), (v), 0, 32, __LINE__))

static inline unsigned __lanemask_lt() { return (1u << (CP_SHIM_STATE.linear_tid & 31u)) - 1u; }
static inline unsigned __lanemask_le() { return (2u << (CP_SHIM_STATE.linear_tid & 31u)) - 1u; }
static inline unsigned __lanemask_eq() { return 1u << (CP_SHIM_STATE.linear_tid & 31u); }
static inline unsigned __lanemask_gt() { return ~__lanemask_le(); }
static inline unsigned __lanemask_ge() { return ~__lanemask_lt(); }

// printf writes into the running block's buffer; the backend concatenates blocks in order. An object-like macro, so
// that `std::printf(...)` and `::printf(...)` work too (cp_shim_printf is in both namespaces).
#define printf cp_shim_printf
#include "include/assert.h"  // assert() ends the launch with an error instead of aborting the process
#define __trap() ::cp_shim::fail(::cp_abi::kTrap, "__trap()", __LINE__)
#define __brkpt() ::cp_shim::fail(::cp_abi::kTrap, "__brkpt()", __LINE__)

// ---- timers, cache hints, misc ----
static inline long long clock64() {
#if defined(__x86_64__) || defined(__i386__)
    return static_cast<long long>(__builtin_ia32_rdtsc());
#else
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<long long>(t.tv_sec) * 1000000000ll + t.tv_nsec;
#endif
}
static inline void __nanosleep(unsigned) {}
template <class T> static inline T __ldg(const T* p) { return *p; }
template <class T> static inline T __ldca(const T* p) { return *p; }
template <class T> static inline T __ldcg(const T* p) { return *p; }
template <class T> static inline T __ldcs(const T* p) { return *p; }
template <class T> static inline T __ldlu(const T* p) { return *p; }
template <class T> static inline T __ldcv(const T* p) { return *p; }
template <class T> static inline void __stwb(T* p, T v) { *p = v; }
template <class T> static inline void __stcg(T* p, T v) { *p = v; }
template <class T> static inline void __stcs(T* p, T v) { *p = v; }
template <class T> static inline void __stwt(T* p, T v) { *p = v; }

// ---- launch glue: what the backend's generated entry points call ----
#define CP_SHIM_EXPORT extern "C" __attribute__((visibility("default"), used))

namespace cp_shim {
template <class P>
using Stored = std::remove_cv_t<P>;

// The plain (fiber-less) run of a block's threads (cp_abi::PlainRun): `call` for each in order, stopping as soon as
// one reached a barrier or a warp operation (the host then took over the rest). Lessons' and programs' launches
// (cuda_program.h) share it.
template <class Call>
__attribute__((always_inline)) static inline void run_block_threads(const cp_abi::PlainRun* run, Call&& call) {
    cp_abi::ThreadState& s = CP_SHIM_STATE;
    const int* promoted = run->promoted;
    if (!run->order) {
        unsigned linear = 0;
        for (unsigned z = 0; z < s.block_dim.z; ++z)
            for (unsigned y = 0; y < s.block_dim.y; ++y)
                for (unsigned x = 0; x < s.block_dim.x; ++x) {
                    s.thread_idx = cp_abi::Uint3{x, y, z};
                    s.linear_tid = linear;
                    s.order_pos = linear;
                    ++linear;
                    call();
                    if (*promoted) return;
                }
        return;
    }
    const unsigned bx = s.block_dim.x, bxy = s.block_dim.x * s.block_dim.y;
    for (unsigned pos = 0; pos < run->count; ++pos) {
        const unsigned linear = run->order[pos];
        s.thread_idx = cp_abi::Uint3{linear % bx, (linear % bxy) / bx, linear / bxy};
        s.linear_tid = linear;
        s.order_pos = pos;
        call();
        if (*promoted) return;
    }
}

template <auto Kernel, class... P, std::size_t... I>
static inline void run_plain_impl(void (*)(P...), void** args, const cp_abi::PlainRun* run, std::index_sequence<I...>) {
    // Unpacked once per block; every thread gets its own copy of the by-value parameters.
    std::tuple<Stored<P>...> values(*static_cast<Stored<P>*>(args[I])...);
    run_block_threads(run, [&] { Kernel(std::get<I>(values)...); });
}
template <class F>
struct Signature;
template <class... P>
struct Signature<void (*)(P...)> {
    static constexpr std::size_t arity = sizeof...(P);
};
template <class... P>
struct Signature<void (*)(P...) noexcept> : Signature<void (*)(P...)> {};

template <auto Kernel>
static inline void run_plain(void** args, const cp_abi::PlainRun* run) {
    run_plain_impl<Kernel>(Kernel, args, run, std::make_index_sequence<Signature<decltype(Kernel)>::arity>{});
}

template <auto Kernel, class... P, std::size_t... I>
static inline void run_one_impl(void (*)(P...), void** args, std::index_sequence<I...>) {
    Kernel(*static_cast<Stored<P>*>(args[I])...);
}
template <auto Kernel>
static inline void run_one(void** args) {
    run_one_impl<Kernel>(Kernel, args, std::make_index_sequence<Signature<decltype(Kernel)>::arity>{});
}

template <class P>
static constexpr cp_abi::ParamInfo param_info_of() {
    using T = std::remove_cv_t<P>;
    if constexpr (std::is_pointer<T>::value) {
        using Pointee = std::remove_pointer_t<T>;
        unsigned pointee_size = 0;
        if constexpr (!std::is_void<Pointee>::value && !std::is_function<Pointee>::value) pointee_size = sizeof(Pointee);
        return cp_abi::ParamInfo{sizeof(T), alignof(T), 1, pointee_size, std::is_const<Pointee>::value ? 1 : 0};
    } else {
        return cp_abi::ParamInfo{sizeof(T), alignof(T), 0, 0, 0};
    }
}
template <class... P>
static inline const cp_abi::ParamInfo* param_infos(void (*)(P...), int* count) {
    static const cp_abi::ParamInfo infos[sizeof...(P) + 1] = {param_info_of<P>()..., cp_abi::ParamInfo{0, 0, 0, 0, 0}};
    *count = static_cast<int>(sizeof...(P));
    return infos;
}
}  // namespace cp_shim


CP_SHIM_EXPORT int cp_module_abi_version() { return CP_SHIM_ABI_VERSION; }
CP_SHIM_EXPORT cp_abi::ThreadState* cp_module_state() { return ::cp_shim::state_ptr(); }

// ---- bounds checks per access ----
// Kernels compiled with GCC's -fsanitize=kernel-address call the hooks in cuda_shim_bounds.h. A bounds-checked
// library links them from an object the backend compiles once per set of flags (CP_SHIM_BOUNDS_HOOKS_APART,
// host_compiler.cpp: their 30 functions were 40 % of every kernel's compile); the recording variant, whose every
// access calls them, and a compile without that object define them here.
#if defined(__SANITIZE_ADDRESS__) && !defined(CP_SHIM_BOUNDS_HOOKS_APART)
#include "cuda_shim_bounds.h"
#endif

// Whole programs: the CUDA runtime their host code calls.
#include "cuda_program.h"
