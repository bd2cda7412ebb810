// The binary interface between a kernel library built against the CUDA shim and the CPU backend that
// loads it: per-OS-thread state the kernel reads (threadIdx...), and the host calls it makes (barriers,
// warp operations, printf, assert). Included by the shim (inside the kernel's .so) and by the host.
#pragma once

#include <cstddef>
#include <cstdint>

// Bump whenever a struct or function below changes: cached kernel libraries are keyed by it.
#define CP_SHIM_ABI_VERSION 11

namespace cp_abi {

struct Uint3 {
    unsigned x, y, z;
};

// Block-level barriers (the __syncthreads family).
enum BarrierKind : int { kSyncThreads = 0, kSyncThreadsCount = 1, kSyncThreadsAnd = 2, kSyncThreadsOr = 3 };

// Warp-level operations. Lanes named in `mask` meet like at a barrier and exchange `value`.
enum WarpOp : int {
    kSyncWarp = 0,
    kShfl, kShflUp, kShflDown, kShflXor,
    kVoteAll, kVoteAny, kBallot,
    kMatchAny, kMatchAll,
    kReduceAdd, kReduceMin, kReduceMax, kReduceAnd, kReduceOr, kReduceXor,
    kReduceMinSigned, kReduceMaxSigned, kReduceAddSigned,
    kActiveMask,
    kWarpOpCount
};

struct WarpRequest {
    int op;                  // WarpOp
    unsigned mask;           // lanes that take part (ignored for kActiveMask)
    unsigned long long value;  // the caller's value, its bytes zero-extended to 64 bits
    int lane_arg;            // srcLane, delta or lane mask (shuffles)
    int width;               // shuffle segment width (power of two, 1..32)
    int line;                // source line of the call
};

// Where a static `__shared__` array of the running kernel lives (source_prep.cpp rewrites each array
// declaration to ask for it): its storage for the declaration's size, in guarded memory of its own.
struct SharedSlot {
    void* data;
    unsigned long long bytes;
};

// What a value's bytes hold, for the debugger (DebugValue) and the static `__shared__` arrays.
enum ValueKind : int { kValueOther = 0, kValueBool, kValueSigned, kValueUnsigned, kValueFloat, kValuePointer };

// One variable at a debugger's probe (issue 39): `count` elements of `element_size` bytes of `kind` (a scalar: 1;
// `float v[4]`: 4; a float4: 4 floats), `bytes` of them at `data`, the thread's own variable.
// A pointer also says what it points to (`pointee_kind`, `pointee_size`; void: kValueOther, 1), so a pointer
// into the dynamic shared memory (`extern __shared__ int partial[]` is one on the CPU backend) names and types it.
struct DebugValue {
    int kind;  // ValueKind
    unsigned element_size;
    unsigned count;
    unsigned bytes;
    const void* data;
    int pointee_kind;
    unsigned pointee_size;
};

// Why a kernel stopped itself (assert, __trap).
enum FailKind : int { kAssert = 0, kTrap = 1, kUnsupported = 2 };

struct HostApi {
    // Returns the barrier's aggregate (count / and / or of the predicates) once every thread arrived.
    int (*sync_threads)(void* block, int kind, int predicate, int line);
    // Returns the caller's result (the shuffled value, the ballot, the match mask...).
    unsigned long long (*warp_op)(void* block, const WarpRequest* request);
    void (*print)(void* block, const char* text, std::size_t length);
    // Never returns: ends the launch with an error naming the thread, the line and `what`.
    void (*fail)(void* block, int kind, const char* what, int line);
    // The storage of static `__shared__` declaration `id` (numbered in the file) for an array of `bytes` bytes
    // named `name`, of `element_size`-byte elements in `rank` dimensions of `extents` elements (outermost
    // first; at most 4 are given), starting `align`-aligned; made on first use and kept for the worker; null
    // when there is no memory for it. `owner` is ThreadState::shared_owner.
    void* (*shared_slot)(void* owner, unsigned id, unsigned long long bytes, unsigned align, unsigned element_size,
                         int element_kind, const char* name, const unsigned long long* extents, unsigned rank);
    // A debugger's probe (a library compiled for stepping, core/cpu/debug_instrument.h): the calling thread is
    // about to run the statement at `line`; `names` (comma-separated) and `values` are its variables in scope.
    // The host records them and may run other threads before it returns.
    void (*debug_step)(void* block, int line, const char* names, const DebugValue* values, unsigned count);
};

// One per OS thread per loaded kernel library (thread_local inside the library). The host fills the
// block fields before running a block, and the thread fields whenever it switches to another thread.
struct ThreadState {
    Uint3 thread_idx;
    unsigned linear_tid;     // threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y
    unsigned order_pos;      // position of this thread in the block's run order (plain mode)
    Uint3 block_idx;
    Uint3 block_dim;
    Uint3 grid_dim;
    void* dynamic_shared;    // extern __shared__ storage of the running block
    void* block;             // the host's scheduler for the running block (opaque to the kernel)
    const HostApi* host;
    // Static __shared__ arrays: per declaration id, the storage last handed out (HostApi::shared_slot fills
    // it), so that a declaration asks the host only the first time (or for another size of a template).
    SharedSlot* shared_slots;
    unsigned shared_slot_count;
    void* shared_owner;      // the worker's arrays (opaque to the kernel)
};

// Describes the plain (fiber-less) run of a block's threads: in `order` (null = natural order, x
// fastest), stopping as soon as `*promoted` becomes non-zero (a thread reached a barrier or a warp op,
// so the host took over the remaining threads).
struct PlainRun {
    const unsigned* order;
    unsigned count;
    const int* promoted;
};

// What the host needs to know about each kernel parameter to check and pass the arguments.
struct ParamInfo {
    unsigned size;
    unsigned align;
    int is_pointer;
    unsigned pointee_size;   // 0 for void*
    int pointee_const;
};

// Bounds checks per access. A kernel library is compiled with GCC's -fsanitize=kernel-address: before each
// load and store, inline code reads the shadow byte of the address, (address >> 3) + kBoundsShadowOffset,
// and when it is not 0 calls a report hook, which the shim defines (there is no sanitizer runtime). Guarded
// buffers end at a guard page but start inside their first page, and with a 16-byte aligned start (vector
// kernels, the dynamic shared memory) end up to 15 bytes before the guard: the backend marks the shadow of
// every 8 bytes that hold any of those accessible bytes outside a buffer (the buffer's own first or last
// bytes may share them), and the hook asks BoundsMap::check, which knows the exact bounds.
inline constexpr unsigned long long kBoundsShadowOffset = 0x200000000000ull;  // 32 TiB: free in 47-bit layouts
inline constexpr unsigned long long kBoundsShadowBytes = 1ull << 44;          // covers 47 bits of addresses
struct BoundsMap {
    // The exact check of an access whose shadow is marked: returns when [address, address + size) is inside
    // its buffer (or touches no buffer's edge), else ends the launch as a fault at `pc` (the kernel's
    // instruction) would.
    void (*check)(unsigned long long address, unsigned long long size, int is_write, const void* pc);
};

// Memory recording (issue 23): a library compiled with -DCP_SHIM_RECORD_ACCESSES and GCC's call for every
// access (asan-instrumentation-with-call-threshold=0) hands each load and store of its code to `record`, with
// the calling OS thread's state (which CUDA thread runs), before the bounds check. The backend keeps those it
// wants (global and shared memory, during a recording launch).
struct AccessRecorder {
    void (*record)(const ThreadState* state, unsigned long long address, unsigned long long size, int is_write,
                   const void* pc);
};


// Whole programs (a file with its own main(), compiled with -DCP_SHIM_PROGRAM against cuda_program.h): the
// program's host code runs on the worker's request thread and reaches the backend through these calls. Device
// allocations are guarded buffers of the worker, as a lesson's are; launches run on the worker's pool with every
// check a lesson's launch gets.
enum ProgramMemory : int { kDeviceMemory = 0, kManagedMemory = 1, kPinnedHostMemory = 2 };

struct ProgramAllocation {
    void* base;
    unsigned long long bytes;
    int kind;  // ProgramMemory
};

// A launch's kernel as it was entered: the function (the instantiation a template launch deduced, in this library)
// and its parameters after the conversions the call made (`int` passed to a `size_t` parameter: 8 bytes). Each
// program kernel starts with a probe (source_prep.cpp) that, while the runtime asks (ProgramHost::wants_entry),
// fills this and returns before the kernel's first statement.
struct ProgramEntry {
    const void* function;
    unsigned count;
    const ParamInfo* params;
    const void* const* values;  // each parameter's bytes (params[i].size of them)
};

// One launch as the program wrote it (`kernel<<<grid, block, shared, stream>>>(args...)`, cudaLaunchKernel).
struct ProgramLaunch {
    const char* kernel;  // the name as written (`reduce<float>`)
    int line;            // the launch's line in the user's file
    Uint3 grid, block;
    unsigned long long shared_bytes;
    unsigned long long stream;  // 0: the default stream; else the stream's number (1, 2, ... in creation order)
    void (*run_plain)(void** args, const PlainRun* run);  // as a kernel library's cp_run_plain_<k>
    void (*run_one)(void** args);                         // as cp_run_one_<k>
    void** args;                                          // what run_plain and run_one are given
    const ParamInfo* params;                              // of each argument as passed
    unsigned param_count;
    const void* const* values;  // each argument's bytes
    const ProgramEntry* entry;  // ProgramHost::wants_entry: the kernel as entered (null when its probe did not run)
    int cooperative;            // cudaLaunchCooperativeKernel: its blocks may sync the whole grid (GPU only)
    const char* file;           // the program's own header the launch is written in (`line` is its); null: the file
};

// A GPU's facts, for cudaGetDeviceProperties and cudaDeviceGetAttribute (ProgramHost::device).
struct ProgramDeviceFacts {
    char name[256];
    unsigned long long total_memory, free_memory, shared_per_block, shared_per_block_optin, shared_per_sm,
        constant_memory, l2_bytes;
    int regs_per_block, regs_per_sm, sm_count, cc_major, cc_minor, max_threads_per_block, max_threads_per_sm,
        max_blocks_per_sm, warp_size, bus_width, clock_khz, memory_clock_khz, async_engines, concurrent_managed,
        cooperative, pci_bus, pci_device, pci_domain, integrated, ecc;
    int max_block[3], max_grid[3];
};

// Event and stream operations of ProgramHost::event and ProgramHost::stream.
enum ProgramEventOp : int { kEventCreate = 0, kEventRecord, kEventSynchronize, kEventElapsed, kEventDestroy, kEventQuery };
enum ProgramStreamOp : int { kStreamCreate = 0, kStreamDestroy, kStreamQuery };

struct ProgramHost {
    void* context;
    // Zero-filled memory between guards (device and managed memory; pinned host memory too), null when there is
    // none. `name` is what the program wrote (`&d_a`), `line` the call's.
    void* (*allocate)(void* context, unsigned long long bytes, int kind, const char* name, int line);
    // 0 when `pointer` is the start of a live allocation of `kind`'s family (freed now), else 1.
    int (*release)(void* context, void* pointer, int kind);
    // 1 and the allocation `pointer` points into (its end included, as CUDA's pointer arithmetic allows), else 0.
    int (*find)(void* context, const void* pointer, ProgramAllocation* out);
    // Runs the launch (or refuses it) and returns the cudaError_t value the program is to see: 0, a launch error
    // (9: invalid configuration), or the error a kernel that faulted leaves (700: illegal address...).
    int (*launch)(void* context, const ProgramLaunch* launch);
    // How many worker threads run blocks (cudaDeviceProp::multiProcessorCount).
    int (*workers)(void* context);

    // A device with memory of its own (the GPU) sets these; the CPU backend leaves them null, and the runtime then
    // copies with memmove and keeps time with the host's clock. Each returns a cudaError_t value (0: done).
    int wants_entry;  // 1: run each launch's entry probe and pass ProgramLaunch::entry
    int (*copy)(void* context, void* dst, const void* src, unsigned long long bytes, unsigned long long stream,
                int async);
    int (*fill)(void* context, void* dst, int value, unsigned long long bytes, unsigned long long stream, int async);
    // Waits for `stream` (all: the whole device) and returns the error a kernel left, as cudaDeviceSynchronize.
    int (*synchronize)(void* context, unsigned long long stream, int all);
    // The device address and size of the __constant__ or __device__ variable whose host twin is `host_symbol`.
    int (*symbol)(void* context, const void* host_symbol, void** device_address, unsigned long long* bytes);
    int (*stream)(void* context, int op, unsigned long long stream);  // ProgramStreamOp; streams numbered 1, 2...
    // ProgramEventOp on event `event` (numbered 1, 2...); `other`: the stream to record on, or the end event of
    // kEventElapsed, whose milliseconds go to `ms`.
    int (*event)(void* context, int op, unsigned long long event, unsigned long long other, float* ms);
    int (*device)(void* context, ProgramDeviceFacts* out);

    // The CPU backend closes device memory to host code between launches, as a GPU's is (a host read of a cudaMalloc
    // pointer crashes, with its line): the runtime opens it (1) around its own copies and fills, and closes it (0)
    // after. Null: nothing to do.
    void (*device_access)(void* context, int open);
};

}  // namespace cp_abi

// Symbols every kernel library exports (extern "C"):
//   int cp_module_abi_version(void);
//   cp_abi::ThreadState* cp_module_state(void);            // the calling OS thread's state
//   void cp_run_plain_<kernel>(void** args, const cp_abi::PlainRun* run);
//   void cp_run_one_<kernel>(void** args);                  // the current thread (fiber mode)
//   const cp_abi::ParamInfo* cp_params_<kernel>(int* count);
//   void cp_module_bind_bounds(const cp_abi::BoundsMap* map);  // instrumented libraries; before any kernel runs
//   void cp_module_bind_recorder(const cp_abi::AccessRecorder* r);  // recording libraries; before any kernel runs
// and programs (-DCP_SHIM_PROGRAM):
//   int cp_program_main(int argc, char** argv, const cp_abi::ProgramHost* host);  // the program's main()
