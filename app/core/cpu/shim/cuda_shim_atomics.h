// CUDA's atomic functions, for exactly the types CUDA has them, on the host's atomic builtins.
// Threads of one block never run at the same time, but blocks on different workers do. Part of the shim.
#pragma once

namespace cp_shim {
template <class T>
static inline T atomic_update(T* address, T (*update)(T old, T arg), T arg) {
    T old = __atomic_load_n(address, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(address, &old, update(old, arg), true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return old;
}
// Floating-point updates go through the bits (compare-exchange on the integer of the same size).
template <class F, class I>
static inline F atomic_update_float(F* address, F (*update)(F old, F arg), F arg) {
    I* bits = reinterpret_cast<I*>(address);
    I old = __atomic_load_n(bits, __ATOMIC_RELAXED);
    for (;;) {
        F old_value, new_value;
        __builtin_memcpy(&old_value, &old, sizeof(F));
        new_value = update(old_value, arg);
        I new_bits;
        __builtin_memcpy(&new_bits, &new_value, sizeof(F));
        if (__atomic_compare_exchange_n(bits, &old, new_bits, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return old_value;
    }
}
}  // namespace cp_shim

#define CP_SHIM_ATOMIC_RMW(NAME, T, BUILTIN)                                                    \
    static inline T NAME(T* address, T value) { return BUILTIN(address, value, __ATOMIC_RELAXED); } \
    static inline T NAME##_block(T* address, T value) { return NAME(address, value); }         \
    static inline T NAME##_system(T* address, T value) { return NAME(address, value); }
#define CP_SHIM_ATOMIC_CAS_BASED(NAME, T, EXPR)                                                 \
    static inline T NAME(T* address, T value) {                                                 \
        return cp_shim::atomic_update<T>(address, [](T old, T arg) -> T { return EXPR; }, value); \
    }                                                                                           \
    static inline T NAME##_block(T* address, T value) { return NAME(address, value); }         \
    static inline T NAME##_system(T* address, T value) { return NAME(address, value); }

CP_SHIM_ATOMIC_RMW(atomicAdd, int, __atomic_fetch_add)
CP_SHIM_ATOMIC_RMW(atomicAdd, unsigned int, __atomic_fetch_add)
CP_SHIM_ATOMIC_RMW(atomicAdd, unsigned long long, __atomic_fetch_add)
CP_SHIM_ATOMIC_RMW(atomicSub, int, __atomic_fetch_sub)
CP_SHIM_ATOMIC_RMW(atomicSub, unsigned int, __atomic_fetch_sub)
CP_SHIM_ATOMIC_RMW(atomicExch, int, __atomic_exchange_n)
CP_SHIM_ATOMIC_RMW(atomicExch, unsigned int, __atomic_exchange_n)
CP_SHIM_ATOMIC_RMW(atomicExch, unsigned long long, __atomic_exchange_n)
CP_SHIM_ATOMIC_RMW(atomicAnd, int, __atomic_fetch_and)
CP_SHIM_ATOMIC_RMW(atomicAnd, unsigned int, __atomic_fetch_and)
CP_SHIM_ATOMIC_RMW(atomicAnd, unsigned long long, __atomic_fetch_and)
CP_SHIM_ATOMIC_RMW(atomicOr, int, __atomic_fetch_or)
CP_SHIM_ATOMIC_RMW(atomicOr, unsigned int, __atomic_fetch_or)
CP_SHIM_ATOMIC_RMW(atomicOr, unsigned long long, __atomic_fetch_or)
CP_SHIM_ATOMIC_RMW(atomicXor, int, __atomic_fetch_xor)
CP_SHIM_ATOMIC_RMW(atomicXor, unsigned int, __atomic_fetch_xor)
CP_SHIM_ATOMIC_RMW(atomicXor, unsigned long long, __atomic_fetch_xor)
CP_SHIM_ATOMIC_CAS_BASED(atomicMin, int, old < arg ? old : arg)
CP_SHIM_ATOMIC_CAS_BASED(atomicMin, unsigned int, old < arg ? old : arg)
CP_SHIM_ATOMIC_CAS_BASED(atomicMin, long long, old < arg ? old : arg)
CP_SHIM_ATOMIC_CAS_BASED(atomicMin, unsigned long long, old < arg ? old : arg)
CP_SHIM_ATOMIC_CAS_BASED(atomicMax, int, old > arg ? old : arg)
CP_SHIM_ATOMIC_CAS_BASED(atomicMax, unsigned int, old > arg ? old : arg)
CP_SHIM_ATOMIC_CAS_BASED(atomicMax, long long, old > arg ? old : arg)
CP_SHIM_ATOMIC_CAS_BASED(atomicMax, unsigned long long, old > arg ? old : arg)
// atomicInc/atomicDec wrap around at `value`, as CUDA defines them.
CP_SHIM_ATOMIC_CAS_BASED(atomicInc, unsigned int, old >= arg ? 0u : old + 1u)
CP_SHIM_ATOMIC_CAS_BASED(atomicDec, unsigned int, (old == 0u || old > arg) ? arg : old - 1u)

static inline float atomicAdd(float* address, float value) {
    return cp_shim::atomic_update_float<float, unsigned int>(address, [](float old, float arg) { return old + arg; }, value);
}
static inline double atomicAdd(double* address, double value) {
    return cp_shim::atomic_update_float<double, unsigned long long>(address, [](double old, double arg) { return old + arg; },
                                                                   value);
}
static inline float atomicAdd_block(float* address, float value) { return atomicAdd(address, value); }
static inline float atomicAdd_system(float* address, float value) { return atomicAdd(address, value); }
static inline double atomicAdd_block(double* address, double value) { return atomicAdd(address, value); }
static inline double atomicAdd_system(double* address, double value) { return atomicAdd(address, value); }
static inline float atomicExch(float* address, float value) {
    return cp_shim::atomic_update_float<float, unsigned int>(address, [](float, float arg) { return arg; }, value);
}

#define CP_SHIM_ATOMIC_CAS(T)                                                                     \
    static inline T atomicCAS(T* address, T compare, T value) {                                   \
        __atomic_compare_exchange_n(address, &compare, value, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
        return compare;                                                                           \
    }                                                                                             \
    static inline T atomicCAS_block(T* address, T compare, T value) { return atomicCAS(address, compare, value); } \
    static inline T atomicCAS_system(T* address, T compare, T value) { return atomicCAS(address, compare, value); }
CP_SHIM_ATOMIC_CAS(int)
CP_SHIM_ATOMIC_CAS(unsigned int)
CP_SHIM_ATOMIC_CAS(unsigned long long)
CP_SHIM_ATOMIC_CAS(unsigned short)

#undef CP_SHIM_ATOMIC_RMW
#undef CP_SHIM_ATOMIC_CAS_BASED
#undef CP_SHIM_ATOMIC_CAS

#define __threadfence() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define __threadfence_block() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define __threadfence_system() __atomic_thread_fence(__ATOMIC_SEQ_CST)
