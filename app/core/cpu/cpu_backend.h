// The CPU backend: kernels compiled by the host C++ compiler against a CUDA shim and run by worker
// threads with fibers, in a sandboxed worker process (cpu_worker.h). Options for tests and for exposing
// missing barriers (thread order).
#pragma once

#include "core/engine/backend.h"
#include "core/cpu/block_scheduler.h"

#include <cstdint>
#include <memory>
#include <string>

namespace cp {

struct CpuBackendOptions {
    int workers = 0;                            // 0: one per core; 1: deterministic (blocks in order)
    ThreadOrder order = ThreadOrder::Natural;   // order of a block's threads (Reversed/Shuffled expose races)
    uint64_t seed = 1;                          // for Shuffled
    std::string compiler;                       // empty: $CXX, else g++ / clang++ from PATH
    std::string cache_dir;                      // empty: cpu_cache_dir(); "-": no cache
    // Kernel code runs in this process, without a sandbox or watchdog: for benchmarks of the process hop
    // and for debugging the emulator. Never for files a user opens.
    bool in_process = false;
    // Which device this backend plays and how many the CPU offers (CUDA_PLAYGROUND_CPU_DEVICES): each is a
    // worker of its own, so a `devices:` split runs one worker per device as on several GPUs. CPU workers
    // share the machine's cores, so their timings say nothing about GPU scaling.
    int device = 0;
    int device_count = 1;
};

// Reads CUDA_PLAYGROUND_CPU_WORKERS (a number), CUDA_PLAYGROUND_CPU_DEVICES (1-64), CUDA_PLAYGROUND_CPU_ORDER (natural | reversed | shuffled,
// optionally shuffled:SEED) and CUDA_PLAYGROUND_CPU_SEED. An Error names a variable with a bad value.
Result<CpuBackendOptions> cpu_backend_options_from_env();

Result<std::unique_ptr<Backend>> make_cpu_backend_with(const CpuBackendOptions& options);
// The registry's factory (core/backends/registry.cpp): options from the environment. `device`: which of
// the CPU's devices (CUDA_PLAYGROUND_CPU_DEVICES, default 1: each is its own worker process, for trying
// `devices:` splits without GPUs); an Error for an ordinal past them.
Result<std::unique_ptr<Backend>> make_cpu_backend(int device = 0);

}  // namespace cp
