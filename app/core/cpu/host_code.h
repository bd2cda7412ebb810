// Host C++ from a kernel file, run like kernel code: compiled by the confined host compiler, called in a
// sandboxed CPU worker with the watchdog, a crash reported with its line. Independent of the main backend,
// so a machine whose kernels run on the GPU runs, e.g., a lesson's CPU reference this way too.
//
//   auto runner = make_host_code_runner();                       // no process yet
//   CompileResult c = (*runner)->compile({source, path, {"PLAYGROUND_REFERENCE"}});
//   BufferId in = (*runner)->allocate("in", bytes);              // shared memory: fill (*runner)->data(in)
//   HostCallResult r = (*runner)->call(c.module, "reference_name", {buffer args..., scalar args...});
//
// The function called is `extern "C" void NAME(void** args)`: args[i] points to buffer i's data or to a
// scalar's bytes, as for a kernel launch (KernelArg).
#pragma once

#include "core/cpu/cpu_backend.h"
#include "core/cpu/cpu_executor.h"
#include "core/cpu/host_compiler.h"

#include <memory>

namespace cp {

class HostCodeRunner {
public:
    virtual ~HostCodeRunner() = default;
    // Diagnostics on the user's lines; `module` is set when it compiled and loaded.
    virtual CompileResult compile(const HostLibraryRequest& request) = 0;
    virtual Result<BufferId> allocate(const std::string& name, uint64_t bytes) = 0;
    // The buffer's bytes in this process (zero-filled at first); null for an unknown id.
    virtual std::byte* data(BufferId buffer) = 0;
    // A crash, a blocked system call or the time-out becomes `error` with the function and the line.
    virtual HostCallResult call(ModuleId module, const std::string& symbol, const std::vector<KernelArg>& args) = 0;
    virtual void release(const ReleaseRequest& request) = 0;
};

// `options` as for the CPU backend (cache folder, compiler; in_process only for tests).
Result<std::unique_ptr<HostCodeRunner>> make_host_code_runner(const CpuBackendOptions& options = {});

}  // namespace cp
