// The part of the CPU backend that runs kernel code: loaded kernel libraries, buffers mapped between
// guards, launches on the worker pool and what a crash looked like. It runs inside the sandboxed CPU
// worker process (cpu_worker.h); tests and benchmarks may run it in their own process. Everything that
// needs more than computing (compiling, source lines through addr2line) happens outside, in the app.
#pragma once

#include "core/cpu/block_scheduler.h"
#include "core/engine/engine_api.h"
#include "core/engine/program_api.h"
#include "core/engine/program_device.h"
#include "core/result.h"

#include <cstdint>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cp {

// What the app needs to know about a loaded kernel library.
struct ModuleFacts {
    uint64_t tls_bytes = 0;  // static __shared__ variables plus the shim's thread state
    uint64_t load_base = 0, code_begin = 0, code_end = 0;
};


struct ExecutorLaunch {
    LaunchResult result;
    std::optional<CodeSite> site;  // with result.error: where the crash was
};

// One call of a plain host function in a loaded library (e.g. a lesson's CPU reference): `void symbol(void**
// args)`, each argument a pointer to a buffer's data or to a scalar's bytes, as for a kernel.
struct HostCallRequest {
    ModuleId module = 0;
    std::string symbol;
    std::vector<KernelArg> args;
};
struct HostCallResult {
    bool ok = false;
    double ms = 0;
    std::optional<EngineError> error;
    std::optional<CodeSite> site;
};

// A whole program's run (a library compiled with -DCP_SHIM_PROGRAM): its main() on this thread, its launches on
// the pool (or on the GPU, ProgramRunRequest::device_image). What each launch did is told as it ends (`on_launch`,
// core/engine/program_device.h), so that a program ending itself with exit() loses none of them.
struct ProgramRunRequest {
    ModuleId module = 0;
    std::vector<std::string> argv;  // argv[0] first
    size_t buffer_align = 1;        // how aligned device allocations start (buffer_start_alignment)
    uint64_t memory_limit = uint64_t(16) << 30;  // device, managed and pinned allocations together
    double time_limit_s = 0;                     // the whole run (the app's watchdog); 0: launch_timeout_s()
    // Where the running launch's block counts go (the CPU worker's status page); null: nowhere. Not sent.
    std::atomic<uint64_t>* blocks_total = nullptr;
    std::atomic<uint64_t>* blocks_done = nullptr;
    // The capture (ProgramRequest::capture_limit): buffers' bytes are appended to this file; -1: none. The CPU
    // worker sends it as the request's fourth descriptor.
    int capture_fd = -1;
    uint64_t capture_limit = 0;
    // Its kernels on a GPU (a worker started with the device's hooks): the device code; null: the CPU's threads.
    std::shared_ptr<const ProgramDeviceImage> device_image;
    std::map<size_t, ProgramLaunchChange> changes;  // ProgramRequest::changes
    // The program's own folder: its host code may read files beneath it (a relative path is taken from it), and
    // nothing else; empty: no file. Not sent (the app's supervisor decides).
    std::string read_folder;
};
struct ProgramRunResult {
    bool returned = false;  // main() returned
    bool exited = false;    // it called exit() (which ends the CPU worker's process: it is replaced)
    bool aborted = false;   // it called abort() (a failed assert() in host code, std::terminate)
    int exit_status = 0;    // main()'s value, exit()'s argument, 134 for an abort
    double ms = 0;
    std::optional<EngineError> error;  // the host code crashed (with `site`), or the run could not start
    std::optional<CodeSite> site;
    // What the program wrote to its standard output and error (filled by the CPU worker's app side; a program
    // run in this process writes to the process's own), each kept up to kProgramOutputCap bytes.
    std::string stdout_text, stderr_text;
    bool output_truncated = false;
    // What its host code tried and was refused (a file written, one outside its folder read, a program started),
    // in words: the call failed in the program, which went on as a program denied it would.
    std::vector<std::string> refused;
};
inline constexpr size_t kProgramOutputCap = size_t(16) << 20;

// The executor's interface, so the backend does not care whether kernels run in a worker process.
class KernelRunner {
public:
    virtual ~KernelRunner() = default;
    virtual int workers() const = 0;
    // Gets ready for the first request in the background (the worker process starts meanwhile).
    virtual void prepare() {}
    // Loads the kernel library `library` (a file the host compiler made) as `id` and checks it has entry
    // points for `kernel` (none checked when empty). `subject` names it in messages. In the sandbox the
    // worker cannot open files: the app hands it this one.
    virtual Result<ModuleFacts> load_module(ModuleId id, const std::string& library, const std::string& kernel,
                                            const std::string& subject) = 0;
    virtual void unload_module(ModuleId id) = 0;
    // Maps the shared-memory file `fd` (a SharedMemoryFile of `bytes` and `start_align`) as buffer `id` between
    // guards.
    virtual std::optional<EngineError> map_buffer(BufferId id, const std::string& name, int fd, uint64_t bytes,
                                                  size_t start_align = 1) = 0;
    virtual void unmap_buffer(BufferId id) = 0;
    virtual ExecutorLaunch launch(const LaunchRequest& request) = 0;
    virtual HostCallResult call_host(const HostCallRequest& request) = 0;
    // The program's standard output and error are the process's (the CPU worker points them at the app's pipes);
    // device printf of its launches goes there too, after what the host printed before the launch.
    virtual ProgramRunResult run_program(const ProgramRunRequest& request, const ProgramLaunchSink& on_launch);
};

// The limits a GPU checks before a launch (block, grid, shared memory with the library's static `__shared__`
// bound `tls_bytes`): an INVALID_CONFIGURATION error when one is passed.
std::optional<EngineError> check_launch_limits(const Dim3& grid, const Dim3& block, uint64_t dynamic_shared_bytes,
                                               uint64_t tls_bytes);

struct ExecutorOptions {
    int workers = 1;
    ThreadOrder order = ThreadOrder::Natural;
    uint64_t seed = 1;
    // Whole programs' kernels on a GPU: the app's side names the device ("cuda": the CPU worker is started as the
    // GPU program worker, core/backends/gpu_program_worker.cpp); the worker's side has its hooks.
    std::string device_name;
    const ProgramDeviceHooks* device = nullptr;
};

// The device a program run in this process uses now (null: none, or the CPU's threads): its launches are told
// when the program ends itself with exit() (the CPU worker's exit handler).
ProgramDevice* current_program_device();

// Tells whoever watches the worker threads (the CPU worker's status page) where each one keeps the
// running CUDA thread's indices: called on each pool thread when a launch starts.
using ThreadStateObserver = void (*)(int worker_index, const cp_abi::ThreadState* state);

std::unique_ptr<KernelRunner> make_cpu_executor(const ExecutorOptions& options, ThreadStateObserver observer = nullptr);

// Puts the words of an error's code site (" (line 5)") into its message, at EngineError::site_at or else at the
// end, and sets its `line` to `line` when that is known (> 0).
void place_code_site(EngineError& error, const std::string& location, int line = 0);

}  // namespace cp
