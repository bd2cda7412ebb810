// The CUDA shim's bounds checks per access: the hooks GCC's -fsanitize=kernel-address calls. Included by
// cuda_shim.h, or compiled alone into the object a bounds-checked library links (host_compiler.cpp,
// CP_SHIM_BOUNDS_HOOKS_APART); either way each library has its own hooks and its own bounds map.
#pragma once

#include <cstddef>

#include "cp_shim_abi.h"

#ifndef CP_SHIM_EXPORT
#define CP_SHIM_EXPORT extern "C" __attribute__((visibility("default"), used))
#endif

// Kernels are compiled with GCC's -fsanitize=kernel-address and a shadow offset (host_compiler.cpp): before
// each load and store, inline code tests the address's shadow byte (cp_shim_abi.h) and calls
// __asan_report_{load,store}{1,2,4,8,16}_noabort, defined here, when it is marked: near a buffer's edge. Sizes
// the inline code does not handle come to __asan_{load,store}N_noabort. One check serves them all, with what
// a later recorder of accesses needs (address, size, read or write, the kernel's instruction).
#if defined(CP_SHIM_RECORD_ACCESSES) && defined(CP_SHIM_BOUNDS_HOOKS_APART)
#error "the recording variant's hooks read the thread's state: they are compiled with the kernel (cuda_shim.h)"
#endif
#if defined(__SANITIZE_ADDRESS__)
namespace cp_shim {
static const cp_abi::BoundsMap* bounds_map = nullptr;

#define CP_SHIM_NO_CHECK __attribute__((no_sanitize_address))
CP_SHIM_NO_CHECK __attribute__((always_inline)) static inline void check_access(unsigned long long address,
                                                                                 unsigned long long size, int is_write,
                                                                                 const void* pc) {
    if (const cp_abi::BoundsMap* map = bounds_map) map->check(address, size, is_write, pc);
}
// Any marked shadow byte under [address, address + size): then the exact check.
CP_SHIM_NO_CHECK __attribute__((always_inline)) static inline void check_range(unsigned long long address,
                                                                                unsigned long long size, int is_write,
                                                                                const void* pc) {
    if (!size || address + size < address || (address + size - 1) >> 47) return;
    const unsigned char* shadow = reinterpret_cast<const unsigned char*>(cp_abi::kBoundsShadowOffset);
    for (unsigned long long g = address >> 3; g <= (address + size - 1) >> 3; ++g)
        if (shadow[g]) return check_access(address, size, is_write, pc);
}
}  // namespace cp_shim

// A recording library (-DCP_SHIM_RECORD_ACCESSES, compiled so that every access calls a hook below) also hands
// each access to the backend's recorder (cp_shim_abi.h, AccessRecorder).
#if defined(CP_SHIM_RECORD_ACCESSES)
namespace cp_shim {
static const cp_abi::AccessRecorder* recorder = nullptr;
}
#define CP_SHIM_RECORD(address, size, is_write, pc)                                                               \
    do {                                                                                                          \
        if (const cp_abi::AccessRecorder* r_ = ::cp_shim::recorder)                                               \
            r_->record(::cp_shim::state_ptr(), address, size, is_write, pc);                                      \
    } while (0)
CP_SHIM_EXPORT CP_SHIM_NO_CHECK void cp_module_bind_recorder(const cp_abi::AccessRecorder* r) { ::cp_shim::recorder = r; }
#else
#define CP_SHIM_RECORD(address, size, is_write, pc) ((void)0)
#endif
// The ten sized hooks of each family: loads and stores of 1, 2, 4, 8 and 16 bytes.
#define CP_SHIM_FOR_EACH_SIZE(HOOK)                                                                               \
    HOOK(load, 1, 0) HOOK(load, 2, 0) HOOK(load, 4, 0) HOOK(load, 8, 0) HOOK(load, 16, 0) HOOK(store, 1, 1)        \
    HOOK(store, 2, 1) HOOK(store, 4, 1) HOOK(store, 8, 1) HOOK(store, 16, 1)
#define CP_SHIM_REPORT_HOOK(kind, bytes, is_write)                                                                \
    extern "C" __attribute__((visibility("hidden"), used, noinline)) CP_SHIM_NO_CHECK void                         \
        __asan_report_##kind##bytes##_noabort(void* address) {                                                    \
        ::cp_shim::check_access(reinterpret_cast<unsigned long long>(address), bytes, is_write,                  \
                                __builtin_return_address(0));                                                     \
    }
CP_SHIM_FOR_EACH_SIZE(CP_SHIM_REPORT_HOOK)
#undef CP_SHIM_REPORT_HOOK
extern "C" __attribute__((visibility("hidden"), used, noinline)) CP_SHIM_NO_CHECK void
__asan_report_load_n_noabort(void* address, std::size_t size) {
    ::cp_shim::check_access(reinterpret_cast<unsigned long long>(address), size, 0, __builtin_return_address(0));
}
extern "C" __attribute__((visibility("hidden"), used, noinline)) CP_SHIM_NO_CHECK void
__asan_report_store_n_noabort(void* address, std::size_t size) {
    ::cp_shim::check_access(reinterpret_cast<unsigned long long>(address), size, 1, __builtin_return_address(0));
}
extern "C" __attribute__((visibility("hidden"), used, noinline)) CP_SHIM_NO_CHECK void
__asan_loadN_noabort(void* address, std::size_t size) {
    CP_SHIM_RECORD(reinterpret_cast<unsigned long long>(address), size, 0, __builtin_return_address(0));
    ::cp_shim::check_range(reinterpret_cast<unsigned long long>(address), size, 0, __builtin_return_address(0));
}
extern "C" __attribute__((visibility("hidden"), used, noinline)) CP_SHIM_NO_CHECK void
__asan_storeN_noabort(void* address, std::size_t size) {
    CP_SHIM_RECORD(reinterpret_cast<unsigned long long>(address), size, 1, __builtin_return_address(0));
    ::cp_shim::check_range(reinterpret_cast<unsigned long long>(address), size, 1, __builtin_return_address(0));
}
// Calls for every access (when the compiler chooses them over inline code): the same test, out of line.
#define CP_SHIM_ACCESS_HOOK(kind, bytes, is_write)                                                                \
    extern "C" __attribute__((visibility("hidden"), used, noinline)) CP_SHIM_NO_CHECK void                         \
        __asan_##kind##bytes##_noabort(void* address) {                                                           \
        CP_SHIM_RECORD(reinterpret_cast<unsigned long long>(address), bytes, is_write, __builtin_return_address(0)); \
        ::cp_shim::check_range(reinterpret_cast<unsigned long long>(address), bytes, is_write,                   \
                               __builtin_return_address(0));                                                      \
    }
CP_SHIM_FOR_EACH_SIZE(CP_SHIM_ACCESS_HOOK)
#undef CP_SHIM_FOR_EACH_SIZE
#undef CP_SHIM_ACCESS_HOOK
// Called before a function that does not return (a kernel's assert, __trap), and around a file's dynamic
// initialisers (static constructors, at load): nothing to do here.
extern "C" __attribute__((visibility("hidden"), used)) CP_SHIM_NO_CHECK void __asan_handle_no_return() {}
extern "C" __attribute__((visibility("hidden"), used)) CP_SHIM_NO_CHECK void __asan_before_dynamic_init(const void*) {}
extern "C" __attribute__((visibility("hidden"), used)) CP_SHIM_NO_CHECK void __asan_after_dynamic_init() {}

CP_SHIM_EXPORT void cp_module_bind_bounds(const cp_abi::BoundsMap* map) { ::cp_shim::bounds_map = map; }
#endif  // __SANITIZE_ADDRESS__
