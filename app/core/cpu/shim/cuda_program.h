// The playground's CUDA runtime for whole programs on the CPU backend: the subset of the CUDA Runtime API a
// course program, a book example or an NVIDIA one-file sample uses, with CUDA's error codes and rules. Included
// at the end of cuda_shim.h when a file with its own main() is compiled as a program (-DCP_SHIM_PROGRAM,
// source_prep.cpp's prepare_program_source); its host code calls these, its launches (`k<<<g, b, s, st>>>(...)`,
// rewritten to ::cp_rt::launch) run on the worker's threads through cp_abi::ProgramHost.
//
// Faithful to CUDA where a program can tell:
// - each call returns CUDA's cudaError_t value and sets the last error (cudaGetLastError returns it and resets
//   it, cudaPeekAtLastError does not);
// - a launch the device refuses (block 2048, grid 0, too much shared memory) runs nothing and leaves
//   cudaErrorInvalidValue for cudaGetLastError, as CUDA 13 does (measured on an H200); the launch returns at once;
// - a kernel that faults (out of bounds, an assert, a trap) is found, as on a GPU, at the next call that waits for
//   the device (cudaDeviceSynchronize, a cudaMemcpy...), and from then on every call returns that error: it is
//   sticky, as a GPU context's is;
// - cudaMemcpy checks its device side against the allocation (cudaErrorInvalidValue past its end, a kind that does
//   not exist: cudaErrorInvalidMemcpyDirection), cudaFree a pointer it did not allocate (cudaErrorInvalidValue).
// On the CPU backend launches run one at a time, in program order, so streams and the *Async calls are ordered as on
// one stream, and events read the host's clock. On a GPU (a host that sets ProgramHost::copy and the calls after it)
// memory, copies, streams and events are the driver's, and so are the errors a kernel leaves; launches go to the
// device by the instantiation each one's entry probe found (CP_RT_KERNEL_ENTRY).
#pragma once

#if defined(CP_SHIM_PROGRAM)

#include <algorithm>
#include <chrono>
#include <cstring>
#include <type_traits>

#undef __managed__
#define __managed__

enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidPitchValue = 12,
    cudaErrorInvalidSymbol = 13,
    cudaErrorInvalidHostPointer = 16,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorInvalidDeviceFunction = 98,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchOutOfResources = 701,
    cudaErrorLaunchTimeout = 702,
    cudaErrorAssert = 710,
    cudaErrorHardwareStackError = 714,
    cudaErrorIllegalInstruction = 715,
    cudaErrorMisalignedAddress = 716,
    cudaErrorLaunchFailure = 719,
    cudaErrorCooperativeLaunchTooLarge = 720,
    cudaErrorNotSupported = 801,
    cudaErrorUnknown = 999
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
};

struct CUstream_st {
    unsigned long long number;
};
struct CUevent_st {
    double ms;
    bool recorded;
    unsigned long long number;  // the GPU's event (ProgramHost::event)
};
typedef CUstream_st* cudaStream_t;
typedef CUevent_st* cudaEvent_t;
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaCpuDeviceId (-1)
#define CUDART_VERSION 13000

// The fields of CUDA 13's cudaDeviceProp that programs print or size their launches by.
struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    int regsPerBlock;
    int warpSize;
    size_t memPitch;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    size_t totalConstMem;
    int major;
    int minor;
    size_t textureAlignment;
    int multiProcessorCount;
    int integrated;
    int canMapHostMemory;
    int concurrentKernels;
    int ECCEnabled;
    int pciBusID;
    int pciDeviceID;
    int pciDomainID;
    int asyncEngineCount;
    int unifiedAddressing;
    int memoryBusWidth;
    int l2CacheSize;
    int persistingL2CacheMaxSize;
    int maxThreadsPerMultiProcessor;
    size_t sharedMemPerMultiprocessor;
    int regsPerMultiprocessor;
    int managedMemory;
    int isMultiGpuBoard;
    int concurrentManagedAccess;
    int cooperativeLaunch;
    size_t sharedMemPerBlockOptin;
    int maxBlocksPerMultiProcessor;
};

enum cudaDeviceAttr {
    cudaDevAttrMaxThreadsPerBlock = 1,
    cudaDevAttrMaxBlockDimX = 2,
    cudaDevAttrMaxBlockDimY = 3,
    cudaDevAttrMaxBlockDimZ = 4,
    cudaDevAttrMaxGridDimX = 5,
    cudaDevAttrMaxGridDimY = 6,
    cudaDevAttrMaxGridDimZ = 7,
    cudaDevAttrMaxSharedMemoryPerBlock = 8,
    cudaDevAttrTotalConstantMemory = 9,
    cudaDevAttrWarpSize = 10,
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76,
    cudaDevAttrMaxThreadsPerMultiProcessor = 39
};

namespace cp_rt {

// ---- the program's state: the host's calls, the last error and the sticky one ----
static const cp_abi::ProgramHost* host = nullptr;
static cudaError_t last_error = cudaSuccess;     // for cudaGetLastError / cudaPeekAtLastError
static cudaError_t pending_fault = cudaSuccess;  // a launch faulted; the next waiting call finds it
static cudaError_t sticky = cudaSuccess;         // found: every call returns it from now on
static unsigned long long streams_made = 0;
static unsigned long long events_made = 0;
static bool cooperative_next = false;  // the launch being made came from cudaLaunchCooperativeKernel
static const char* launch_file = nullptr;  // the header the launch being made is written in (launch_in)

// A kernel's entry probe (CP_RT_KERNEL_ENTRY, which source_prep.cpp puts first in each kernel's body): while
// `probing`, a call of the kernel records the function and its parameters as converted, then returns at once.
static bool probing = false;
static cp_abi::ProgramEntry probed{};
static cp_abi::ParamInfo probed_params[256];
static const void* probed_values[256];
alignas(16) static unsigned char probed_bytes[8192];

// The GPU: memory, copies, streams and events are the device's (ProgramHost::copy and the calls after it).
static inline bool gpu() { return host && host->copy; }
// Errors a kernel leaves stay with the context: every call returns them from then on, as CUDA's do.
static inline bool sticky_error(int e) { return e == 700 || (e >= 710 && e <= 719) || e == 999; }

static inline cudaError_t fail(cudaError_t e) {
    if (e != cudaSuccess && last_error == cudaSuccess) last_error = e;
    return e;
}
// What a GPU call returned, as the runtime returns it.
static inline cudaError_t device_result(int r) {
    if (r == 0) return cudaSuccess;
    if (sticky_error(r)) {
        sticky = cudaError_t(r);
        last_error = sticky;
        return sticky;
    }
    return fail(cudaError_t(r));
}
// Every call but the error queries starts here: a sticky error is returned as is.
static inline cudaError_t check_sticky() { return sticky; }
// Calls that wait for the device (synchronize, blocking copies, frees) find a faulted launch's error.
static inline cudaError_t wait_for_device() {
    if (gpu()) {
        if (sticky) return sticky;
        return device_result(host->synchronize(host->context, 0, 1));
    }
    if (pending_fault != cudaSuccess) {
        sticky = pending_fault;
        pending_fault = cudaSuccess;
        last_error = sticky;
    }
    return sticky;
}

static inline double now_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// `&d_a`, `(void**)&d_a`, `reinterpret_cast<void**>(&d_a)`: the variable's name for messages.
static inline void name_of(const char* written, char* out, size_t size) {
    const char* s = written;
    const char* comma = std::strchr(s, ',');
    size_t n = comma ? size_t(comma - s) : std::strlen(s);
    const char* end = s + n;
    // After the last closing parenthesis of a cast, or inside reinterpret_cast<...>(...).
    const char* open = nullptr;
    for (const char* p = s; p < end; ++p)
        if (*p == '(') open = p;
    if (open && std::strncmp(s, "reinterpret_cast", 16) == 0) {
        s = open + 1;
    } else {
        for (const char* p = s; p < end; ++p)
            if (*p == ')') s = p + 1;
    }
    while (s < end && (*s == ' ' || *s == '&' || *s == '(')) ++s;
    while (end > s && (end[-1] == ' ' || end[-1] == ')')) --end;
    n = std::min(size_t(end - s), size - 1);
    std::memcpy(out, s, n);
    out[n] = 0;
}

static inline cudaError_t allocate(void** pointer, size_t bytes, int kind, const char* written, int line) {
    if (cudaError_t e = check_sticky()) return e;
    if (!pointer) return fail(cudaErrorInvalidValue);
    if (bytes == 0) {
        *pointer = nullptr;  // as CUDA: a zero-byte allocation succeeds and returns no memory
        return cudaSuccess;
    }
    char name[96];
    name_of(written, name, sizeof name);
    void* p = host->allocate(host->context, bytes, kind, name, line);
    if (!p) {
        *pointer = nullptr;
        return fail(cudaErrorMemoryAllocation);
    }
    *pointer = p;
    return cudaSuccess;
}

template <class T>
static inline cudaError_t malloc_at(int line, const char* written, T** pointer, size_t bytes) {
    return allocate(reinterpret_cast<void**>(pointer), bytes, cp_abi::kDeviceMemory, written, line);
}
template <class T>
static inline cudaError_t malloc_managed_at(int line, const char* written, T** pointer, size_t bytes,
                                            unsigned flags = cudaMemAttachGlobal) {
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost) return fail(cudaErrorInvalidValue);
    return allocate(reinterpret_cast<void**>(pointer), bytes, cp_abi::kManagedMemory, written, line);
}
template <class T>
static inline cudaError_t malloc_host_at(int line, const char* written, T** pointer, size_t bytes,
                                         unsigned flags = 0) {
    (void)flags;
    return allocate(reinterpret_cast<void**>(pointer), bytes, cp_abi::kPinnedHostMemory, written, line);
}

static inline unsigned long long stream_number(cudaStream_t s) {
    if (!s || s == cudaStreamLegacy || s == cudaStreamPerThread) return 0;
    return s->number;
}

// The runtime's own copies may touch device memory, which the CPU backend keeps closed to host code otherwise.
struct DeviceAccess {
    DeviceAccess() {
        if (host && host->device_access) host->device_access(host->context, 1);
    }
    ~DeviceAccess() {
        if (host && host->device_access) host->device_access(host->context, 0);
    }
    DeviceAccess(const DeviceAccess&) = delete;
    DeviceAccess& operator=(const DeviceAccess&) = delete;
};

static inline bool find(const void* p, cp_abi::ProgramAllocation* a) { return host->find(host->context, p, a) != 0; }
static inline bool on_device(const void* p) {
    cp_abi::ProgramAllocation a;
    return find(p, &a) && a.kind != cp_abi::kPinnedHostMemory;
}
// [p, p + bytes) lies wholly in one device or managed allocation.
static inline bool device_range(const void* p, size_t bytes) {
    cp_abi::ProgramAllocation a;
    if (!find(p, &a) || a.kind == cp_abi::kPinnedHostMemory) return false;
    const size_t offset = size_t(static_cast<const char*>(p) - static_cast<const char*>(a.base));
    return offset <= a.bytes && bytes <= a.bytes - offset;
}

static inline cudaError_t copy(void* dst, const void* src, size_t bytes, int kind, bool waits,
                               unsigned long long stream = 0) {
    // A GPU's blocking copy waits for the device itself (and returns what a kernel left).
    if (cudaError_t e = waits && !gpu() ? wait_for_device() : check_sticky()) return e;
    if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return fail(cudaErrorInvalidMemcpyDirection);
    if (bytes == 0) return cudaSuccess;
    if (!dst || !src) return fail(cudaErrorInvalidValue);
    if (kind == cudaMemcpyDefault) {
        // Unified addressing: the pointers say where they are.
        if ((on_device(dst) && !device_range(dst, bytes)) || (on_device(src) && !device_range(src, bytes)))
            return fail(cudaErrorInvalidValue);
    } else {
        const bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
        const bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
        if (dst_device && !device_range(dst, bytes)) return fail(cudaErrorInvalidValue);
        if (src_device && !device_range(src, bytes)) return fail(cudaErrorInvalidValue);
    }
    if (gpu()) return device_result(host->copy(host->context, dst, src, bytes, stream, waits ? 0 : 1));
    DeviceAccess open;
    std::memmove(dst, src, bytes);
    return cudaSuccess;
}

static inline cudaError_t set(void* dst, int value, size_t bytes, unsigned long long stream, bool async) {
    if (cudaError_t e = check_sticky()) return e;
    if (bytes == 0) return cudaSuccess;
    if (!device_range(dst, bytes)) return fail(cudaErrorInvalidValue);
    if (gpu()) return device_result(host->fill(host->context, dst, value, bytes, stream, async ? 1 : 0));
    DeviceAccess open;
    std::memset(dst, value, bytes);
    return cudaSuccess;
}

static inline cudaError_t release(void* p, int kind) {
    if (cudaError_t e = gpu() ? check_sticky() : wait_for_device()) return e;
    if (!p) return cudaSuccess;  // cudaFree(nullptr) does nothing, as in CUDA
    if (host->release(host->context, p, kind) != 0) return fail(cudaErrorInvalidValue);
    return cudaSuccess;
}

// ---- launches ----
// A literal 0 or NULL passed to a launch (source_prep.cpp rewrites it to Zero{}): a null pointer for a pointer
// parameter, a zero for a number, as the literal is in a direct call.
struct Zero {
    template <class T, class = std::enable_if_t<std::is_pointer<T>::value || std::is_arithmetic<T>::value ||
                                                std::is_enum<T>::value || std::is_null_pointer<T>::value>>
    constexpr operator T() const {
        if constexpr (std::is_pointer<T>::value || std::is_null_pointer<T>::value) return nullptr;
        else return static_cast<T>(0);
    }
};

struct LaunchConfig {
    dim3 grid, block;
    size_t shared;
    cudaStream_t stream;
    LaunchConfig(dim3 g, dim3 b, size_t s = 0, cudaStream_t st = 0) : grid(g), block(b), shared(s), stream(st) {}
};

// The probe's record: the kernel's function and a copy of each parameter (the kernel's own types).
template <class... P>
static inline void probe_entry(const void* function, const P&... p) {
    unsigned count = 0;
    size_t used = 0;
    bool fits = true;
    auto one = [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        used = (used + alignof(T) - 1) & ~(alignof(T) - 1);
        if (count >= 256 || used + sizeof(T) > sizeof probed_bytes) {
            fits = false;
            return;
        }
        std::memcpy(probed_bytes + used, static_cast<const void*>(&v), sizeof(T));
        probed_params[count] = ::cp_shim::param_info_of<T>();
        probed_values[count] = probed_bytes + used;
        used += sizeof(T);
        ++count;
    };
    (one(p), ...);
    if (fits) probed = cp_abi::ProgramEntry{function, count, probed_params, probed_values};
}

template <class Tuple, class Body>
struct LaunchThunk {
    Tuple* values;
    Body* body;
    // As the generated entry points of a lesson's kernel (cuda_shim.h): the block's threads in a loop until one
    // reaches a barrier.
    static void plain(void** args, const cp_abi::PlainRun* run) {
        auto* self = static_cast<LaunchThunk*>(args[0]);
        ::cp_shim::run_block_threads(run, [self] { std::apply(*self->body, *self->values); });
    }
    static void one(void** args) {
        auto* self = static_cast<LaunchThunk*>(args[0]);
        std::apply(*self->body, *self->values);
    }
};

template <class Tuple, std::size_t... I>
static inline void describe_args(Tuple& values, cp_abi::ParamInfo* infos, const void** addresses,
                                 std::index_sequence<I...>) {
    ((infos[I] = ::cp_shim::param_info_of<std::tuple_element_t<I, Tuple>>(),
      addresses[I] = static_cast<const void*>(&std::get<I>(values))),
     ...);
}


// `kernel<<<config>>>(args...)` as source_prep.cpp rewrites it: `body` calls the kernel with a thread's copy of
// the arguments (converted to the parameters' types there, as the call would).
template <class Body, class... A>
static inline void launch(int line, const char* kernel, const LaunchConfig& config, Body body, A&&... args) {
    if (check_sticky()) return;
    using Tuple = std::tuple<std::decay_t<A>...>;
    Tuple values(std::forward<A>(args)...);
    LaunchThunk<Tuple, Body> thunk{&values, &body};
    void* thunk_args[1] = {&thunk};
    constexpr std::size_t n = sizeof...(A);
    cp_abi::ParamInfo infos[n + 1];
    const void* addresses[n + 1];
    describe_args(values, infos, addresses, std::make_index_sequence<n>{});
    cp_abi::ProgramLaunch l{};
    l.kernel = kernel;
    l.line = line;
    l.grid = cp_abi::Uint3{config.grid.x, config.grid.y, config.grid.z};
    l.block = cp_abi::Uint3{config.block.x, config.block.y, config.block.z};
    l.shared_bytes = config.shared;
    l.stream = stream_number(config.stream);
    l.run_plain = &LaunchThunk<Tuple, Body>::plain;
    l.run_one = &LaunchThunk<Tuple, Body>::one;
    l.args = thunk_args;
    l.params = infos;
    l.param_count = unsigned(n);
    l.values = addresses;
    l.entry = nullptr;
    l.cooperative = cooperative_next ? 1 : 0;
    cooperative_next = false;
    l.file = launch_file;
    if (host->wants_entry) {
        probed = cp_abi::ProgramEntry{};
        probing = true;
        LaunchThunk<Tuple, Body>::one(thunk_args);
        probing = false;
        if (probed.function) l.entry = &probed;
    }
    const int r = host->launch(host->context, &l);
    if (gpu()) {
        if (r != 0) device_result(r);  // refused (cudaErrorInvalidValue...): nothing ran
        return;
    }
    if (r == cudaErrorInvalidValue)
        fail(cudaError_t(r));  // refused (ProgramHostState::kRefusedLaunchError): nothing ran, cudaGetLastError says why
    else if (r != cudaSuccess)
        pending_fault = cudaError_t(r);  // it ran and faulted: found when the program next waits for the device
}

// A launch written in one of the program's own headers (source_prep.cpp): `line` is the header's.
template <class Body, class... A>
static inline void launch_in(const char* file, int line, const char* kernel, const LaunchConfig& config, Body body,
                             A&&... args) {
    launch_file = file;
    launch(line, kernel, config, std::move(body), std::forward<A>(args)...);
    launch_file = nullptr;
}

template <class... P, std::size_t... I>
static inline void launch_with_pointers(int line, const char* kernel, void (*f)(P...), const LaunchConfig& config,
                                        void** args, std::index_sequence<I...>) {
    launch(line, kernel, config, [f](auto&... a) { f(a...); }, *static_cast<std::remove_cv_t<P>*>(args[I])...);
}
template <class... P>
static inline cudaError_t launch_kernel_at(int line, const char* written, void (*f)(P...), dim3 grid, dim3 block,
                                           void** args, size_t shared = 0, cudaStream_t stream = 0) {
    if (cudaError_t e = check_sticky()) return e;
    if (!f || (sizeof...(P) > 0 && !args)) return fail(cudaErrorInvalidValue);
    char name[96];
    name_of(written, name, sizeof name);
    const cudaError_t before = last_error;
    last_error = cudaSuccess;
    launch_with_pointers(line, name, f, LaunchConfig(grid, block, shared, stream), args,
                         std::index_sequence_for<P...>{});
    const cudaError_t refused = last_error;
    last_error = before != cudaSuccess ? before : refused;
    return refused;
}
// cudaLaunchKernel((void*)kernel, ...): the kernel's type is lost in the cast; it must be launched by its own type.
template <class F>
static inline cudaError_t launch_kernel_at(int, const char*, F*, dim3, dim3, void**, size_t = 0, cudaStream_t = 0) {
    static_assert(std::is_function<F>::value,
                  "cudaLaunchKernel needs the kernel itself, not a void* cast of it, in the playground's runtime: "
                  "write cudaLaunchKernel(kernel, grid, block, args, shared, stream)");
    return cudaErrorInvalidDeviceFunction;
}

template <class F>
static inline int call_main(F* main_function, int argc, char** argv) {
    if constexpr (std::is_invocable_v<F*, int, char**>) {
        return int(main_function(argc, argv));
    } else {
        (void)argc;
        (void)argv;
        return int(main_function());
    }
}

}  // namespace cp_rt

// First in each kernel's body (source_prep.cpp): `CP_RT_KERNEL_ENTRY(&axpy<T>, a, x, y, n)`.
#define CP_RT_KERNEL_ENTRY(function, ...)                                                      \
    if (::cp_rt::probing) {                                                                    \
        ::cp_rt::probe_entry(reinterpret_cast<const void*>(function), ##__VA_ARGS__);          \
        return;                                                                                \
    }

// ---- the API, as programs call it ----
static inline cudaError_t cudaGetLastError() {
    if (cp_rt::sticky) return cp_rt::sticky;
    const cudaError_t e = cp_rt::last_error;
    cp_rt::last_error = cudaSuccess;
    return e;
}
static inline cudaError_t cudaPeekAtLastError() { return cp_rt::sticky ? cp_rt::sticky : cp_rt::last_error; }

static inline const char* cudaGetErrorString(cudaError_t e) {
    switch (e) {
        case cudaSuccess: return "no error";
        case cudaErrorInvalidValue: return "invalid argument";
        case cudaErrorMemoryAllocation: return "out of memory";
        case cudaErrorInitializationError: return "initialization error";
        case cudaErrorInvalidConfiguration: return "invalid configuration argument";
        case cudaErrorInvalidPitchValue: return "invalid pitch argument";
        case cudaErrorInvalidSymbol: return "invalid device symbol";
        case cudaErrorInvalidHostPointer: return "invalid host pointer";
        case cudaErrorInvalidDevicePointer: return "invalid device pointer";
        case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
        case cudaErrorInvalidDeviceFunction: return "invalid device function";
        case cudaErrorNoDevice: return "no CUDA-capable device is detected";
        case cudaErrorInvalidDevice: return "invalid device ordinal";
        case cudaErrorInvalidResourceHandle: return "invalid resource handle";
        case cudaErrorNotReady: return "device not ready";
        case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
        case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
        case cudaErrorLaunchTimeout: return "the launch timed out and was terminated";
        case cudaErrorAssert: return "device-side assert triggered";
        case cudaErrorHardwareStackError: return "hardware stack error";
        case cudaErrorIllegalInstruction: return "an illegal instruction was encountered";
        case cudaErrorMisalignedAddress: return "misaligned address";
        case cudaErrorLaunchFailure: return "unspecified launch failure";
        case cudaErrorCooperativeLaunchTooLarge: return "too many blocks in cooperative launch";
        case cudaErrorNotSupported: return "operation not supported";
        default: return "unknown error";
    }
}
static inline const char* cudaGetErrorName(cudaError_t e) {
    switch (e) {
#define CP_RT_NAME(x) \
    case x: return #x;
        CP_RT_NAME(cudaSuccess) CP_RT_NAME(cudaErrorInvalidValue) CP_RT_NAME(cudaErrorMemoryAllocation)
        CP_RT_NAME(cudaErrorInitializationError) CP_RT_NAME(cudaErrorInvalidConfiguration)
        CP_RT_NAME(cudaErrorInvalidPitchValue) CP_RT_NAME(cudaErrorInvalidSymbol) CP_RT_NAME(cudaErrorInvalidHostPointer)
        CP_RT_NAME(cudaErrorInvalidDevicePointer) CP_RT_NAME(cudaErrorInvalidMemcpyDirection)
        CP_RT_NAME(cudaErrorInvalidDeviceFunction) CP_RT_NAME(cudaErrorNoDevice) CP_RT_NAME(cudaErrorInvalidDevice)
        CP_RT_NAME(cudaErrorInvalidResourceHandle) CP_RT_NAME(cudaErrorNotReady) CP_RT_NAME(cudaErrorIllegalAddress)
        CP_RT_NAME(cudaErrorLaunchOutOfResources) CP_RT_NAME(cudaErrorLaunchTimeout) CP_RT_NAME(cudaErrorAssert)
        CP_RT_NAME(cudaErrorHardwareStackError) CP_RT_NAME(cudaErrorIllegalInstruction)
        CP_RT_NAME(cudaErrorMisalignedAddress) CP_RT_NAME(cudaErrorLaunchFailure)
        CP_RT_NAME(cudaErrorCooperativeLaunchTooLarge) CP_RT_NAME(cudaErrorNotSupported)
#undef CP_RT_NAME
        default: return "cudaErrorUnknown";
    }
}

// Allocation: macros, so that the variable's name (`d_a`) and the line reach the playground's messages.
#define cudaMalloc(...) ::cp_rt::malloc_at(__LINE__, #__VA_ARGS__, __VA_ARGS__)
#define cudaMallocManaged(...) ::cp_rt::malloc_managed_at(__LINE__, #__VA_ARGS__, __VA_ARGS__)
#define cudaMallocHost(...) ::cp_rt::malloc_host_at(__LINE__, #__VA_ARGS__, __VA_ARGS__)
#define cudaHostAlloc(...) ::cp_rt::malloc_host_at(__LINE__, #__VA_ARGS__, __VA_ARGS__)
#define cudaLaunchKernel(...) ::cp_rt::launch_kernel_at(__LINE__, #__VA_ARGS__, __VA_ARGS__)
#define cudaLaunchCooperativeKernel(...) \
    (::cp_rt::cooperative_next = true, ::cp_rt::launch_kernel_at(__LINE__, #__VA_ARGS__, __VA_ARGS__))

static inline cudaError_t cudaFree(void* p) { return cp_rt::release(p, cp_abi::kDeviceMemory); }
static inline cudaError_t cudaFreeHost(void* p) { return cp_rt::release(p, cp_abi::kPinnedHostMemory); }

static inline cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
    return cp_rt::copy(dst, src, bytes, int(kind), true);
}
static inline cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                                          cudaStream_t stream = 0) {
    return cp_rt::copy(dst, src, bytes, int(kind), false, cp_rt::stream_number(stream));
}
static inline cudaError_t cudaMemset(void* dst, int value, size_t bytes) {
    return cp_rt::set(dst, value, bytes, 0, false);
}
static inline cudaError_t cudaMemsetAsync(void* dst, int value, size_t bytes, cudaStream_t stream = 0) {
    return cp_rt::set(dst, value, bytes, cp_rt::stream_number(stream), true);
}

// __constant__ and __device__ variables are the library's own globals: on the CPU the symbol is the variable itself;
// on a GPU, the device's variable of the same name (ProgramHost::symbol).
namespace cp_rt {
static inline cudaError_t symbol_address(const void* symbol, size_t size, char** address) {
    *address = static_cast<char*>(const_cast<void*>(symbol));
    if (!gpu()) return cudaSuccess;
    void* device = nullptr;
    unsigned long long bytes = 0;
    if (host->symbol(host->context, symbol, &device, &bytes) != 0 || bytes < size) return fail(cudaErrorInvalidSymbol);
    *address = static_cast<char*>(device);
    return cudaSuccess;
}
}  // namespace cp_rt
template <class T>
static inline cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, size_t bytes, size_t offset = 0,
                                             cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
    if (cudaError_t e = cp_rt::wait_for_device()) return e;
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return cp_rt::fail(cudaErrorInvalidMemcpyDirection);
    if (offset > sizeof(T) || bytes > sizeof(T) - offset) return cp_rt::fail(cudaErrorInvalidValue);
    if (bytes && !src) return cp_rt::fail(cudaErrorInvalidValue);
    char* at = nullptr;
    if (cudaError_t e = cp_rt::symbol_address(&symbol, sizeof(T), &at)) return e;
    if (cp_rt::gpu()) return bytes ? cp_rt::device_result(cp_rt::host->copy(cp_rt::host->context, at + offset, src, bytes, 0, 0)) : cudaSuccess;
    cp_rt::DeviceAccess open;  // a device-to-device copy reads device memory
    std::memcpy(at + offset, src, bytes);
    return cudaSuccess;
}
template <class T>
static inline cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t bytes, size_t offset = 0,
                                               cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
    if (cudaError_t e = cp_rt::wait_for_device()) return e;
    if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return cp_rt::fail(cudaErrorInvalidMemcpyDirection);
    if (offset > sizeof(T) || bytes > sizeof(T) - offset) return cp_rt::fail(cudaErrorInvalidValue);
    if (bytes && !dst) return cp_rt::fail(cudaErrorInvalidValue);
    char* at = nullptr;
    if (cudaError_t e = cp_rt::symbol_address(&symbol, sizeof(T), &at)) return e;
    if (cp_rt::gpu()) return bytes ? cp_rt::device_result(cp_rt::host->copy(cp_rt::host->context, dst, at + offset, bytes, 0, 0)) : cudaSuccess;
    cp_rt::DeviceAccess open;
    std::memcpy(dst, at + offset, bytes);
    return cudaSuccess;
}
template <class T>
static inline cudaError_t cudaMemcpyToSymbolAsync(const T& symbol, const void* src, size_t bytes, size_t offset = 0,
                                                  cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t = 0) {
    return cudaMemcpyToSymbol(symbol, src, bytes, offset, kind);
}
template <class T>
static inline cudaError_t cudaGetSymbolAddress(void** address, const T& symbol) {
    if (!address) return cp_rt::fail(cudaErrorInvalidValue);
    char* at = nullptr;
    if (cudaError_t e = cp_rt::symbol_address(&symbol, sizeof(T), &at)) return e;
    *address = at;
    return cudaSuccess;
}

static inline cudaError_t cudaDeviceSynchronize() { return cp_rt::wait_for_device(); }
static inline cudaError_t cudaThreadSynchronize() { return cp_rt::wait_for_device(); }
static inline cudaError_t cudaDeviceReset() {
    // A reset ends the context: its error goes with it (allocations are not freed here; the program ends soon).
    if (cp_rt::gpu()) (void)cp_rt::host->synchronize(cp_rt::host->context, 0, 1);
    cp_rt::sticky = cp_rt::pending_fault = cp_rt::last_error = cudaSuccess;
    return cudaSuccess;
}
static inline cudaError_t cudaGetDeviceCount(int* count) {
    if (!count) return cp_rt::fail(cudaErrorInvalidValue);
    *count = 1;
    return cudaSuccess;
}
static inline cudaError_t cudaSetDevice(int device) {
    if (cudaError_t e = cp_rt::check_sticky()) return e;
    return device == 0 ? cudaSuccess : cp_rt::fail(cudaErrorInvalidDevice);
}
static inline cudaError_t cudaGetDevice(int* device) {
    if (!device) return cp_rt::fail(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}
static inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
    if (!prop) return cp_rt::fail(cudaErrorInvalidValue);
    if (device != 0) return cp_rt::fail(cudaErrorInvalidDevice);
    std::memset(prop, 0, sizeof *prop);
    cp_abi::ProgramDeviceFacts f{};
    if (cp_rt::gpu() && cp_rt::host->device(cp_rt::host->context, &f) == 0) {
        std::memcpy(prop->name, f.name, sizeof prop->name);
        prop->name[sizeof prop->name - 1] = 0;
        prop->totalGlobalMem = f.total_memory;
        prop->sharedMemPerBlock = f.shared_per_block;
        prop->regsPerBlock = f.regs_per_block;
        prop->warpSize = f.warp_size;
        prop->memPitch = 2147483647;
        prop->maxThreadsPerBlock = f.max_threads_per_block;
        for (int i = 0; i < 3; ++i) {
            prop->maxThreadsDim[i] = f.max_block[i];
            prop->maxGridSize[i] = f.max_grid[i];
        }
        prop->totalConstMem = f.constant_memory;
        prop->major = f.cc_major;
        prop->minor = f.cc_minor;
        prop->textureAlignment = 512;
        prop->multiProcessorCount = f.sm_count;
        prop->integrated = f.integrated;
        prop->canMapHostMemory = 1;
        prop->concurrentKernels = 1;
        prop->ECCEnabled = f.ecc;
        prop->pciBusID = f.pci_bus;
        prop->pciDeviceID = f.pci_device;
        prop->pciDomainID = f.pci_domain;
        prop->asyncEngineCount = f.async_engines;
        prop->unifiedAddressing = 1;
        prop->memoryBusWidth = f.bus_width;
        prop->l2CacheSize = int(f.l2_bytes);
        prop->maxThreadsPerMultiProcessor = f.max_threads_per_sm;
        prop->sharedMemPerMultiprocessor = f.shared_per_sm;
        prop->regsPerMultiprocessor = f.regs_per_sm;
        prop->managedMemory = 1;
        prop->concurrentManagedAccess = f.concurrent_managed;
        prop->cooperativeLaunch = f.cooperative;
        prop->sharedMemPerBlockOptin = f.shared_per_block_optin;
        prop->maxBlocksPerMultiProcessor = f.max_blocks_per_sm;
        return cudaSuccess;
    }
    std::snprintf(prop->name, sizeof prop->name, "CUDA Playground CPU emulation");
    prop->totalGlobalMem = size_t(16) << 30;
    prop->sharedMemPerBlock = 48 * 1024;
    prop->regsPerBlock = 65536;
    prop->warpSize = 32;
    prop->memPitch = 2147483647;
    prop->maxThreadsPerBlock = 1024;
    prop->maxThreadsDim[0] = 1024;
    prop->maxThreadsDim[1] = 1024;
    prop->maxThreadsDim[2] = 64;
    prop->maxGridSize[0] = 2147483647;
    prop->maxGridSize[1] = 65535;
    prop->maxGridSize[2] = 65535;
    prop->totalConstMem = 65536;
    prop->major = __CUDA_ARCH__ / 100;
    prop->minor = (__CUDA_ARCH__ / 10) % 10;
    prop->textureAlignment = 512;
    prop->multiProcessorCount = cp_rt::host ? cp_rt::host->workers(cp_rt::host->context) : 1;
    prop->canMapHostMemory = 1;
    prop->concurrentKernels = 1;
    prop->asyncEngineCount = 1;
    prop->unifiedAddressing = 1;
    prop->memoryBusWidth = 64;
    prop->l2CacheSize = 4 * 1024 * 1024;
    prop->maxThreadsPerMultiProcessor = 2048;
    prop->sharedMemPerMultiprocessor = 48 * 1024;
    prop->regsPerMultiprocessor = 65536;
    prop->managedMemory = 1;
    prop->concurrentManagedAccess = 1;
    prop->cooperativeLaunch = 1;
    prop->sharedMemPerBlockOptin = 48 * 1024;
    prop->maxBlocksPerMultiProcessor = 32;
    return cudaSuccess;
}
static inline cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
    if (!value) return cp_rt::fail(cudaErrorInvalidValue);
    cudaDeviceProp p;
    if (cudaError_t e = cudaGetDeviceProperties(&p, device)) return e;
    switch (attr) {
        case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
        case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
        case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
        case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
        case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
        case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
        case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
        case cudaDevAttrMaxSharedMemoryPerBlock: *value = int(p.sharedMemPerBlock); break;
        case cudaDevAttrTotalConstantMemory: *value = int(p.totalConstMem); break;
        case cudaDevAttrWarpSize: *value = p.warpSize; break;
        case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
        case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
        case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
        case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
        default: return cp_rt::fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}
static inline cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
    if (!free_bytes || !total_bytes) return cp_rt::fail(cudaErrorInvalidValue);
    cp_abi::ProgramDeviceFacts f{};
    if (cp_rt::gpu() && cp_rt::host->device(cp_rt::host->context, &f) == 0) {
        *total_bytes = f.total_memory;
        *free_bytes = f.free_memory;
        return cudaSuccess;
    }
    *total_bytes = size_t(16) << 30;
    *free_bytes = *total_bytes;
    return cudaSuccess;
}
static inline cudaError_t cudaDriverGetVersion(int* v) {
    if (!v) return cp_rt::fail(cudaErrorInvalidValue);
    *v = CUDART_VERSION;
    return cudaSuccess;
}
static inline cudaError_t cudaRuntimeGetVersion(int* v) { return cudaDriverGetVersion(v); }
static inline cudaError_t cudaMemPrefetchAsync(const void*, size_t, int, cudaStream_t = 0) {
    return cp_rt::check_sticky();
}

// Streams: launches and copies run in program order, so every stream is always done when the host asks.
static inline cudaError_t cudaStreamCreate(cudaStream_t* s) {
    if (cudaError_t e = cp_rt::check_sticky()) return e;
    if (!s) return cp_rt::fail(cudaErrorInvalidValue);
    const unsigned long long number = ++cp_rt::streams_made;
    if (cp_rt::gpu())
        if (cudaError_t e = cp_rt::device_result(cp_rt::host->stream(cp_rt::host->context, cp_abi::kStreamCreate, number)))
            return e;
    *s = new CUstream_st{number};
    return cudaSuccess;
}
static inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned) { return cudaStreamCreate(s); }
static inline cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned, int) { return cudaStreamCreate(s); }
static inline cudaError_t cudaStreamDestroy(cudaStream_t s) {
    if (cudaError_t e = cp_rt::check_sticky()) return e;
    if (!s || s == cudaStreamLegacy || s == cudaStreamPerThread) return cp_rt::fail(cudaErrorInvalidResourceHandle);
    if (cp_rt::gpu()) (void)cp_rt::host->stream(cp_rt::host->context, cp_abi::kStreamDestroy, s->number);
    delete s;
    return cudaSuccess;
}
static inline cudaError_t cudaStreamSynchronize(cudaStream_t s) {
    if (!cp_rt::gpu()) return cp_rt::wait_for_device();
    if (cudaError_t e = cp_rt::check_sticky()) return e;
    return cp_rt::device_result(cp_rt::host->synchronize(cp_rt::host->context, cp_rt::stream_number(s), 0));
}
static inline cudaError_t cudaStreamQuery(cudaStream_t s) {
    if (!cp_rt::gpu()) return cp_rt::wait_for_device();
    if (cudaError_t e = cp_rt::check_sticky()) return e;
    const int r = cp_rt::host->stream(cp_rt::host->context, cp_abi::kStreamQuery, cp_rt::stream_number(s));
    return r == cudaErrorNotReady ? cudaErrorNotReady : cp_rt::device_result(r);
}
static inline cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned = 0) {
    return cp_rt::check_sticky();
}

static inline cudaError_t cudaEventCreate(cudaEvent_t* e) {
    if (cudaError_t s = cp_rt::check_sticky()) return s;
    if (!e) return cp_rt::fail(cudaErrorInvalidValue);
    const unsigned long long number = ++cp_rt::events_made;
    if (cp_rt::gpu())
        if (cudaError_t r = cp_rt::device_result(cp_rt::host->event(cp_rt::host->context, cp_abi::kEventCreate, number, 0, nullptr)))
            return r;
    *e = new CUevent_st{0, false, number};
    return cudaSuccess;
}
static inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned) { return cudaEventCreate(e); }
static inline cudaError_t cudaEventDestroy(cudaEvent_t e) {
    if (!e) return cp_rt::fail(cudaErrorInvalidResourceHandle);
    if (cp_rt::gpu()) (void)cp_rt::host->event(cp_rt::host->context, cp_abi::kEventDestroy, e->number, 0, nullptr);
    delete e;
    return cudaSuccess;
}
static inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t stream = 0) {
    if (cudaError_t s = cp_rt::check_sticky()) return s;
    if (!e) return cp_rt::fail(cudaErrorInvalidResourceHandle);
    e->recorded = true;
    if (cp_rt::gpu())
        return cp_rt::device_result(
            cp_rt::host->event(cp_rt::host->context, cp_abi::kEventRecord, e->number, cp_rt::stream_number(stream), nullptr));
    e->ms = cp_rt::now_ms();
    return cudaSuccess;
}
static inline cudaError_t cudaEventSynchronize(cudaEvent_t e) {
    if (!cp_rt::gpu()) {
        if (cudaError_t s = cp_rt::wait_for_device()) return s;
        return e ? cudaSuccess : cp_rt::fail(cudaErrorInvalidResourceHandle);
    }
    if (cudaError_t s = cp_rt::check_sticky()) return s;
    if (!e) return cp_rt::fail(cudaErrorInvalidResourceHandle);
    return cp_rt::device_result(cp_rt::host->event(cp_rt::host->context, cp_abi::kEventSynchronize, e->number, 0, nullptr));
}
static inline cudaError_t cudaEventQuery(cudaEvent_t e) {
    if (!cp_rt::gpu()) return cudaEventSynchronize(e);
    if (cudaError_t s = cp_rt::check_sticky()) return s;
    if (!e) return cp_rt::fail(cudaErrorInvalidResourceHandle);
    const int r = cp_rt::host->event(cp_rt::host->context, cp_abi::kEventQuery, e->number, 0, nullptr);
    return r == cudaErrorNotReady ? cudaErrorNotReady : cp_rt::device_result(r);
}
static inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
    if (cudaError_t s = cp_rt::gpu() ? cp_rt::check_sticky() : cp_rt::wait_for_device()) return s;
    if (!ms || !start || !end) return cp_rt::fail(cudaErrorInvalidResourceHandle);
    if (!start->recorded || !end->recorded) return cp_rt::fail(cudaErrorInvalidResourceHandle);
    if (cp_rt::gpu())
        return cp_rt::device_result(
            cp_rt::host->event(cp_rt::host->context, cp_abi::kEventElapsed, start->number, end->number, ms));
    *ms = float(end->ms - start->ms);
    return cudaSuccess;
}

#endif  // CP_SHIM_PROGRAM
