// The GPU program worker: this executable started with CP_GPU_PROGRAM_WORKER runs the CPU worker's loop (its
// sandbox, watchdog and crash reports for the program's host code) with the CUDA side's device hooks, so that a
// whole program's kernels run on the GPU (core/cuda/cuda_program_device.h). Here, above both backends, so that
// neither includes the other.
#include "core/backends/gpu_program_worker.h"

#include "core/cpu/cpu_worker.h"
#include "core/cuda/cuda_driver.h"
#include "core/cuda/cuda_program_device.h"
#include "core/worker/worker_process.h"

#include <cstdlib>

namespace cp {
namespace {

// Runs before main() in every process that links this file; only a GPU program worker stops here.
const bool g_is_gpu_program_worker = [] {
    const std::optional<WorkerEntry> entry = take_worker_entry(kGpuProgramWorkerEnv);
    if (!entry) return false;
    std::_Exit(serve_cpu_worker(*entry, &cuda_program_device_hooks()));
}();

}  // namespace

Result<std::unique_ptr<ProgramRunner>> make_gpu_program_runner() {
    (void)g_is_gpu_program_worker;  // the worker's entry point comes with the runner that starts it
    std::string why, detail;
    if (!cuda_driver(&why, &detail)) return make_error(ErrorKind::Unsupported, why, detail);
    return make_cpu_program_runner_from_env("cuda");
}

}  // namespace cp
