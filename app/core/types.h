// Small value types shared by every part of the core: 3D sizes, diagnostics, resource usage, device limits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cp {

struct Dim3 {
    uint32_t x = 1, y = 1, z = 1;

    uint64_t count() const { return uint64_t(x) * y * z; }
    std::string str() const;  // "16x16x1"
    bool operator==(const Dim3&) const = default;
};

enum class Severity { Error, Warning, Note };
const char* severity_name(Severity s);

// Who said a diagnostic: what a front end decides on (the window's editor marks each line with every origin
// of its messages; headless --sanitize lists the sanitizer's lines), never the message's words.
enum class DiagnosticOrigin : uint8_t {
    Compile,    // the compiler, or the checks of the kernel file's header and signature
    Run,        // a run: the line a kernel failed on
    Sanitizer,  // a compute-sanitizer finding
};

// One compiler or metadata message, located in a file.
struct Diagnostic {
    std::string file;
    int line = 0;    // 1-based; 0 when unknown
    int column = 0;  // 1-based; 0 when unknown
    Severity severity = Severity::Error;
    std::string message;
    DiagnosticOrigin origin = DiagnosticOrigin::Compile;

    std::string str() const;  // "file:line:col: error: message"
};

bool has_errors(const std::vector<Diagnostic>& diags);

// What a compiled kernel needs per thread/block; -1 means unknown.
struct ResourceUsage {
    int registers = -1;
    int static_shared_bytes = -1;
    int local_bytes = -1;  // stack frame
    int spill_store_bytes = -1;
    int spill_load_bytes = -1;
    int constant_bytes = -1;
    int max_threads_per_block = -1;  // from __launch_bounds__ or the driver
    int barriers = -1;
};

// The order a block's threads run in, where a backend lets it be chosen per launch (the CPU backend runs
// them as fibers: reversed or shuffled order exposes a missing __syncthreads(); a GPU schedules its warps
// itself, so there it cannot be chosen).
struct ThreadOrderChoice {
    enum class Kind { Natural, Reversed, Shuffled };
    Kind kind = Kind::Natural;
    uint64_t seed = 1;  // Shuffled's
    bool operator==(const ThreadOrderChoice&) const = default;
    std::string str() const;  // "natural", "reversed", "shuffled:7"
};
// "natural", "reversed", "shuffled" or "shuffled:SEED"; `why` (when given) says what is wrong otherwise.
bool parse_thread_order(const std::string& text, ThreadOrderChoice& out, std::string* why = nullptr);

// What a backend can do, asked by the UI and the session instead of looking at which backend it is.
struct BackendCapabilities {
    bool launches = true;          // false: compile-only (nothing to run kernels on); DeviceInfo::notes says why
    bool gpu = false;              // kernels run on a GPU (limits are a GPU's; "this GPU" in messages)
    bool device_buffers = false;   // buffers live in GPU memory, so outputs can reach GL textures without the host
    bool buffers_by_ipc = false;   // ...through IPC handles (the backend runs in another process), not raw addresses
    bool occupancy_api = false;    // occupancy() asks the driver; otherwise callers estimate from resource usage
    bool event_timing = false;     // timings are GPU events; otherwise the host's wall clock
    int default_repeats = 10;      // timed launches `run` makes when not told
    // Traced launches need a module compiled with CompileRequest::instrument_trace (CUDA: %smid and
    // %globaltimer are read by an instrumented wrapper); otherwise the backend traces any module (CPU).
    bool trace_needs_instrumented_module = false;
    // Its kernels can run under compute-sanitizer (a CUDA worker process, and the toolkit's sanitizer found):
    // `run --sanitize` and the window's Sanitize (core/session/sanitize.h).
    bool sanitizer = false;
    // The order of a block's threads can be chosen per launch (LaunchRequest::thread_order).
    bool thread_order = false;
    // One block can be run alone and recorded statement by statement (LaunchRequest::debug_block, the debugger).
    bool debug_steps = false;
    // Work on different streams runs at the same time (copy engines next to the SMs): a StreamsRequest's
    // chunks overlap. Otherwise streamed operations run one after another (CPU emulation).
    bool concurrent_streams = false;
};

// Limits and facts about the device a backend runs on. The CPU backend reports CUDA-like limits so
// that launch configurations are validated the same way on both.
struct DeviceInfo {
    std::string backend;  // the backend's registry name ("cuda", "cpu"; see core/engine/backend.h)
    BackendCapabilities caps;
    std::string name;
    std::string arch;  // "sm_90"
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    uint64_t total_memory = 0;
    int max_threads_per_block = 1024;
    Dim3 max_block{1024, 1024, 64};
    Dim3 max_grid{2147483647u, 65535u, 65535u};
    int max_shared_per_block = 48 * 1024;
    int max_shared_per_block_optin = 48 * 1024;
    int max_shared_per_sm = 0;
    int regs_per_block = 65536;
    int regs_per_sm = 65536;
    int max_threads_per_sm = 2048;
    int max_blocks_per_sm = 32;
    int warp_size = 32;
    int l2_bytes = 0;
    double copy_bandwidth_gbps = 0;  // measured device-to-device copy bandwidth; 0 if not measured
    std::string driver_version;
    // Which of this backend's devices this is, and how many the machine has: CUDA asks cuDeviceGet(ordinal) and
    // cuDeviceGetCount; the CPU backend is one device unless CUDA_PLAYGROUND_CPU_DEVICES asks for more workers.
    int ordinal = 0;
    int device_count = 1;
    std::string notes;  // anything the user should know (e.g. "CPU emulation: timings are CPU time")
    // Where kernels run when not on this machine: "remote: `ssh gpu01` -> host gpu01 (cuda backend, NVIDIA H100)"
    // (set by the remote backend, core/remote/remote_backend.h); empty: here.
    std::string where;
};

}  // namespace cp
