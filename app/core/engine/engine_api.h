// The engine's vocabulary: requests and results made of plain values (no pointers into the engine),
// so the same requests serve the engine (in the caller's thread) and the backends' worker processes (the CUDA backend
// runs in a watchdogged child process; engine_wire.h carries these values over its socket).
#pragma once

#include "core/engine/debug_recording.h"
#include "core/engine/memory_figures.h"
#include "core/result.h"
#include "core/types.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace cp {

using ModuleId = uint64_t;  // 0 = none
using BufferId = uint64_t;  // 0 = none

// Plain-words failure of one request. `name` is the backend's error name (e.g. CUDA_ERROR_ILLEGAL_ADDRESS);
// `kind` is what happened (result.h), set where the backend raises it: callers decide on the kind.
struct EngineError {
    std::string name;
    std::string message;
    std::string hint;
    bool context_was_reset = false;  // a sticky error was recovered from; all buffers/modules are gone
    int line = 0;                    // the kernel source's line it happened on (1-based); 0 when unknown
    ErrorKind kind = ErrorKind::Unknown;
    // The CUDA thread it happened in, when the backend knows (the CPU backend's crashes, exits and refused
    // system calls): its index in its block and its block's in the grid. The message names them in words too.
    std::optional<Dim3> thread = {}, block = {};
    // Where in `message` the words of its code site go (" (line 5)", known only after it was worded: the CPU
    // backend looks the line up once its worker has said what happened; place_code_site); nullopt: at the end.
    // The backend places them before the error leaves it, so this never crosses a wire.
    std::optional<size_t> site_at = {};
};
inline EngineError engine_error(ErrorKind kind, std::string name, std::string message, std::string hint = {}) {
    EngineError e{std::move(name), std::move(message), std::move(hint)};
    e.kind = kind;
    return e;
}
// The user-level Error for an engine error: its words and its kind.
inline Error to_error(const EngineError& e) {
    return Error{e.message, e.hint, e.kind};
}
// The EngineError named `name` for an Error; `fallback` when the Error's kind is Unknown.
inline EngineError to_engine_error(const Error& e, std::string name, ErrorKind fallback) {
    return engine_error(e.kind == ErrorKind::Unknown ? fallback : e.kind, std::move(name), e.message, e.hint);
}

struct InfoRequest {};
struct InfoResult {
    DeviceInfo device;
};

struct CompileRequest {
    std::string source;
    std::string path;         // shown in diagnostics
    std::string kernel_name;  // the __global__ function to load
    std::vector<std::string> extra_options;
    bool load = true;         // false: compile only (diagnostics + resource usage), no module
    // true: compile the trace-instrumented variant (core/engine/trace_wrapper.h) so that launches with
    // LaunchRequest::trace record per block where and when it ran. Backends that trace without
    // instrumenting (CPU) compile the source as it is.
    bool instrument_trace = false;
    // true: compile the memory-recording variant (CPU backend: every load and store calls the shim, which
    // records it when the launch asks, LaunchRequest::record_memory). Backends that cannot ignore it.
    bool instrument_memory = false;
    // true: compile the stepping variant (CPU backend: a probe before every statement of the kernel hands its
    // variables to the debugger, core/cpu/debug_instrument.h) for launches with LaunchRequest::debug_block.
    bool instrument_debug = false;
    // More __global__ functions of the same source to load from the same module (a lesson's compare variants): one
    // compile serves them all. CompileResult::also_usage says which a backend loaded.
    std::vector<std::string> also_kernels;
    // Further folders the source's #include "..." and <...> may read headers from (a program's -I DIR).
    std::vector<std::string> include_dirs;
};
struct CompileResult {
    bool ok = false;
    std::vector<Diagnostic> diagnostics;
    std::string log;               // the compiler's raw log
    std::vector<std::string> options;  // options actually used
    ResourceUsage usage;
    bool cache_hit = false;
    double compile_ms = 0;         // wall time of this request (cache look-up included)
    ModuleId module = 0;
    std::optional<EngineError> error;  // set when something other than the source failed (e.g. load)
    // Of CompileRequest::also_kernels, those loaded into `module` (launch them by name), with their resources.
    // Empty for a backend that compiles each kernel on its own (the CPU backend).
    std::map<std::string, ResourceUsage> also_usage;
};

struct AllocateRequest {
    std::string name;  // the buffer's name in the kernel (used in error messages)
    uint64_t bytes = 0;
    uint32_t element_bytes = 1;  // size of one element, to name elements in out-of-bounds reports
};
struct AllocateResult {
    BufferId buffer = 0;
    uint64_t device_address = 0;  // CUDA: CUdeviceptr for interop in the same process; CPU: 0
    std::optional<EngineError> error;
    // CUDA: a CUipcMemHandle (64 bytes) another process on this machine can open (cuIpcOpenMemHandle) to
    // reach this buffer, e.g. the window's GL interop when the backend runs in a worker process. Empty when
    // unavailable (CPU backend, or a driver without IPC).
    std::vector<uint8_t> ipc_handle;
    uint64_t ipc_offset = 0;  // the buffer's start within the allocation the handle opens (guard zones)
    double elapsed_ms = 0;  // the allocation itself (cuMemAlloc + clearing; CPU: the shared-memory file), host clock
};

struct UploadRequest {
    BufferId buffer = 0;
    std::vector<std::byte> data;
    // false: copy `data` to the start of the buffer. true: `data` is one element (1-16 bytes, dividing the
    // buffer's size) repeated over the whole buffer — resets an output to zeros or a constant without
    // sending it whole.
    bool repeat = false;
    // true: copy from page-locked (pinned) host memory, as a program that allocates its host buffers with
    // cudaMallocHost would; staging into it is not timed. false: from ordinary (pageable) memory. CUDA only.
    bool pinned = false;
    uint64_t offset = 0;  // !repeat: where in the buffer `data` goes (bytes), for uploads in several chunks
};

// Writes `pattern` repeatedly over dst[0, bytes); bytes must be a multiple of the pattern's size.
void fill_with_pattern(std::byte* dst, uint64_t bytes, const std::vector<std::byte>& pattern);
struct UploadResult {
    std::optional<EngineError> error;
    double elapsed_ms = 0;  // the host-to-device copy alone (cuMemcpyHtoD / memset; CPU: into shared memory)
};

// One kernel argument: a buffer or a scalar's bytes.
struct KernelArg {
    std::string name;
    BufferId buffer = 0;                 // non-zero: pass this buffer's device pointer
    std::vector<std::byte> scalar;       // else: these bytes (4 or 8)
    uint64_t offset = 0;                 // with a buffer: pass its pointer plus this many bytes (a chunk of it)
};

struct TimingOptions {
    int warmup = 1;
    int repeats = 1;
    bool flush_l2 = false;
};

struct TimingStats {
    std::vector<double> samples_ms;
    double min_ms = 0, median_ms = 0, max_ms = 0;
    bool cpu_time = false;  // measured by the CPU backend's clock, not GPU events
    static TimingStats from_samples(std::vector<double> samples, bool cpu_time);
};

struct LaunchRequest {
    ModuleId module = 0;
    std::string kernel_name;
    Dim3 grid, block;
    uint32_t dynamic_shared_bytes = 0;
    std::vector<KernelArg> args;
    TimingOptions timing;
    // Record per block where and when it ran (the last launch of the request). CUDA needs a module compiled
    // with CompileRequest::instrument_trace; the CPU backend records its worker threads.
    bool trace = false;
    // The order of each block's threads, on a backend whose capabilities say it can be chosen
    // (BackendCapabilities::thread_order); none: the backend's default (CPU: CUDA_PLAYGROUND_CPU_ORDER).
    std::optional<ThreadOrderChoice> thread_order;
    // Record every global and shared load/store (a module compiled with CompileRequest::instrument_memory)
    // and answer LaunchResult::memory: run once, whatever `timing` says.
    bool record_memory = false;
    // With record_memory: the warps whose requests come back lane by lane (MemoryRecording::warps).
    std::vector<WarpId> memory_warps;
    // Record this block's whole run, round by round (a module compiled with CompileRequest::instrument_debug),
    // and answer LaunchResult::debug: only that block runs, once.
    std::optional<uint64_t> debug_block;
    // With debug_block: this warp of the block (0-based) steps alone; the others wait, as at a barrier, until it
    // reaches a __syncthreads() or returns, then go on together (DebugRecording::focus_warp). -1: the whole block
    // steps together, one statement per thread a round.
    int32_t debug_warp = -1;
};

// One block of a traced launch: the SM that ran it (%smid) or the CPU backend's worker thread, and when it
// started and ended (%globaltimer, or the steady clock from the launch's start), in nanoseconds.
struct BlockTrace {
    uint64_t block = 0;  // linear block index: x + grid.x * (y + grid.y * z)
    uint32_t unit = 0;   // SM or worker
    uint64_t start_ns = 0, end_ns = 0;
};

// Where the backend's launch() spent its wall time (LaunchResult::phases), for the frame budget: the four parts
// add up to the whole call, which LaunchResult::backend_ms contains (with the worker's request handling around it).
// Host clock (steady_clock) except kernel_ms. The CUDA backend measures them; all 0 where a backend does not.
struct LaunchPhases {
    double setup_ms = 0;         // before the first launch call: look-ups, checks, arguments, input copies, capture
    double launch_calls_ms = 0;  // queueing each launch: cuLaunchKernel, events, input restores, L2 flush, guard copies
    double wait_ms = 0;          // waiting for the GPU in the synchronise after each launch (cuCtxSynchronize)
    double after_ms = 0;         // the rest: events read, printf, trace and guard zones read back, the result
    // The kernels' own GPU time (events), every launch of the request added, warmups too: the GPU runs them while
    // the host queues or waits, so what wait_ms holds beyond it is the GPU busy with other work (a window's drawing).
    double kernel_ms = 0;
    double total_ms() const { return setup_ms + launch_calls_ms + wait_ms + after_ms; }
    bool measured() const { return total_ms() > 0; }
};

struct LaunchResult {
    bool ok = false;
    TimingStats timing;
    std::string printf_output;  // device printf, captured
    std::optional<EngineError> error;
    std::vector<BlockTrace> trace;  // one per block when the request asked for it, in block order
    std::string trace_unit;         // "sm" or "worker"
    // Wall time of the request inside the backend's worker process (CUDA: the timed launches, their synchronises,
    // the guard read; CPU: the launches and the checks after them): the rest of the app's launch stage is the
    // round trip. 0 where not measured (an in-process backend).
    double backend_ms = 0;
    LaunchPhases phases;  // how the backend's launch() call divides (CUDA); all 0 where not measured
    // With LaunchRequest::record_memory: the per-line figures (memory_figures.h).
    std::optional<MemoryRecording> memory;
    // With LaunchRequest::debug_block: the block's run (debug_recording.h).
    std::optional<DebugRecording> debug;
};

struct ReadBackRequest {
    BufferId buffer = 0;
    bool pinned = false;  // as UploadRequest::pinned, for the device-to-host copy
    // The caller reads the bytes before it next writes, moves or releases this buffer (a window showing a run's
    // picture before the next run): a backend whose buffers live in this process's memory (the CPU backend's
    // shared memory) may then answer with ReadBackResult::in_place instead of a copy. Others copy.
    bool in_place_ok = false;
    // A picture that is only shown, read through a remote backend (RunOptions::preview_max_width): the worker
    // may answer with a box-filtered copy no larger than max_width x max_height instead of every element (a 4K
    // picture is 33 MB to send). The buffer is `width` x `height` elements of `components` components, each a
    // uchar (is_float false) or a float. Backends of this process ignore it and answer every element.
    struct Preview {
        uint32_t width = 0, height = 0, components = 0;
        bool is_float = false;
        uint32_t max_width = 0, max_height = 0;
    };
    std::optional<Preview> preview = std::nullopt;
};
struct ReadBackResult {
    std::vector<std::byte> data;
    std::optional<EngineError> error;
    double elapsed_ms = 0;  // the device-to-host copy alone (cuMemcpyDtoH; CPU: out of shared memory)
    // Answering ReadBackRequest::in_place_ok: the buffer's bytes where they are (`data` stays empty), valid until
    // the buffer is next written (an upload, a launch), moved (the CPU backend's realignment) or released.
    const std::byte* in_place = nullptr;
    uint64_t in_place_bytes = 0;
    // Answering ReadBackRequest::preview with a downscaled copy: `data` is preview_width x preview_height
    // elements, box-filtered, not the buffer's values. 0: `data` is the buffer itself.
    uint32_t preview_width = 0, preview_height = 0;
};

struct ReleaseRequest {
    std::vector<BufferId> buffers;
    std::vector<ModuleId> modules;
};
struct ReleaseResult {};

// The block size that maximises occupancy for a loaded kernel, as the backend's occupancy API answers it
// (CUDA: cuOccupancyMaxPotentialBlockSize), with dynamic shared memory a constant per block.
struct OccupancyRequest {
    ModuleId module = 0;
    std::string kernel_name;
    uint32_t dynamic_shared_bytes = 0;
    uint32_t block_size_limit = 0;  // 0: the kernel's and the device's own limit
    // Also answer, for each of these threads-per-block, the active blocks per SM (CUDA:
    // cuOccupancyMaxActiveBlocksPerMultiprocessor), for the occupancy chart and its check.
    std::vector<int> block_sizes;
};
struct OccupancyResult {
    int min_grid_size = 0;          // blocks that fill every SM at that occupancy
    int block_size = 0;             // threads per block
    int active_blocks_per_sm = 0;
    double occupancy = 0;           // active warps / max warps per SM at block_size
    std::string method;             // "cuOccupancyMaxPotentialBlockSize" or "estimate from resource usage ..."
    std::optional<EngineError> error;
    std::vector<int> active_blocks;  // per OccupancyRequest::block_sizes (0: that size cannot launch)
};

// One launch split into chunks queued on several streams (`streams:` in a kernel file): per chunk its copies
// in, its kernel and its copies out, in that order on its stream, so that different chunks' copies and kernels
// may overlap. Buffers are the session's (allocated before); the copies name byte ranges of them.
struct StreamCopy {
    BufferId buffer = 0;
    uint64_t offset = 0;           // bytes into the buffer
    uint64_t bytes = 0;
    std::vector<std::byte> data;   // host -> device: the bytes to send (`bytes` of them); device -> host: empty
};
struct StreamChunk {
    int stream = 0;                // 0 .. StreamsRequest::streams - 1
    std::vector<StreamCopy> h2d;   // before the kernel
    Dim3 grid;
    std::vector<KernelArg> args;   // buffers with KernelArg::offset at the chunk's start
    std::vector<StreamCopy> d2h;   // after the kernel
};
struct StreamsRequest {
    ModuleId module = 0;
    std::string kernel_name;
    Dim3 block;
    uint32_t dynamic_shared_bytes = 0;
    int streams = 1;
    std::vector<StreamChunk> chunks;
    // Also run the same operations queued on one stream (one after another) and time them: the comparison.
    bool time_one_stream = true;
};
enum class StreamOpKind { H2D, Kernel, D2H };
const char* stream_op_name(StreamOpKind k);  // "h2d", "kernel", "d2h"
struct StreamOp {
    int stream = 0, chunk = 0;
    StreamOpKind kind = StreamOpKind::Kernel;
    double start_ms = 0, end_ms = 0;  // from the first operation's start (GPU events, or the host clock)
    uint64_t bytes = 0;               // copies: bytes moved
};
struct StreamsResult {
    bool ok = false;
    std::vector<StreamOp> ops;     // the S-stream run, chunk by chunk in issue order
    double total_ms = 0;           // first event to last of the S-stream run
    double one_stream_ms = 0;      // the same operations on one stream (0: not measured)
    bool host_clock = false;       // times from the host clock around each operation run in order (no overlap)
    std::vector<std::vector<std::byte>> d2h_data;  // per device -> host copy, chunk by chunk in request order
    std::string printf_output;
    std::optional<EngineError> error;
};

using Request = std::variant<InfoRequest, CompileRequest, AllocateRequest, UploadRequest, LaunchRequest,
                             ReadBackRequest, ReleaseRequest, OccupancyRequest, StreamsRequest>;
using Response = std::variant<InfoResult, CompileResult, AllocateResult, UploadResult, LaunchResult,
                              ReadBackResult, ReleaseResult, OccupancyResult, StreamsResult>;

}  // namespace cp
