// The part of the CPU backend that runs kernel code: loaded kernel libraries, buffers mapped between
// guards, launches on the worker pool and what a crash looked like. It runs inside the sandboxed CPU
// worker process (cpu_worker.h); tests and benchmarks may run it in their own process. Everything that
// needs more than computing (compiling, source lines through addr2line) happens outside, in the app.
#pragma once

#include "core/cpu/block_scheduler.h"
#include "core/engine/engine_api.h"
#include "core/result.h"

#include <cstdint>
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

// Where in a kernel library something happened, for the app to turn into a source line with addr2line:
// addresses relative to the library's load base, best first.
struct CodeSite {
    ModuleId module = 0;
    std::vector<uint64_t> offsets;
    std::string in_function;  // " in memcpy" when it happened inside a library function the kernel called
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
};

struct ExecutorOptions {
    int workers = 1;
    ThreadOrder order = ThreadOrder::Natural;
    uint64_t seed = 1;
};

// Tells whoever watches the worker threads (the CPU worker's status page) where each one keeps the
// running CUDA thread's indices: called on each pool thread when a launch starts.
using ThreadStateObserver = void (*)(int worker_index, const cp_abi::ThreadState* state);

std::unique_ptr<KernelRunner> make_cpu_executor(const ExecutorOptions& options, ThreadStateObserver observer = nullptr);

// Puts the words of an error's code site (" (line 5)") into its message, at EngineError::site_at or else at the
// end, and sets its `line` to `line` when that is known (> 0).
void place_code_site(EngineError& error, const std::string& location, int line = 0);

}  // namespace cp
