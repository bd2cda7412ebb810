// Whole programs on the CPU backend (issue 36): the file compiled against the shim's CUDA runtime (cuda_program.h),
// its main() run in a sandboxed CPU worker with the watchdog, each launch on the worker's threads with every check a
// lesson's launch gets; crashes, refusals and faults mapped to the user's lines.
//
//   auto runner = make_cpu_program_runner();
//   ProgramRun r = (*runner)->run({source, "vector_add.cu", {"1000"}});   // r.stdout_text, r.exit_status, r.launches
#pragma once

#include "core/cpu/cpu_backend.h"
#include "core/engine/program_api.h"
#include "core/result.h"

#include <memory>

namespace cp {

// `options` as for the CPU backend (workers, thread order, cache folder, compiler). in_process runs the program
// in this process, without a sandbox (tests of the runtime only: its output then goes to this process's streams).
// `device` ("cuda"): the host code still runs in a sandboxed worker, started as the GPU program worker, and the
// kernels on that device (the device code compiled by program_device_compile.h; the worker's side needs the
// device's hooks linked in, core/backends/gpu_program_worker.cpp).
Result<std::unique_ptr<ProgramRunner>> make_cpu_program_runner(const CpuBackendOptions& options = {},
                                                               const std::string& device = {});

// The registry's factory: options from the environment (CUDA_PLAYGROUND_CPU_WORKERS...).
Result<std::unique_ptr<ProgramRunner>> make_cpu_program_runner_from_env(const std::string& device = {});

}  // namespace cp
