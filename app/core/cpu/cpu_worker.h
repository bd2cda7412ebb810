// The CPU backend's kernel code runs here: in a worker process (this executable started with CP_CPU_WORKER,
// core/worker/worker_process.h) that enters a sandbox (core/worker/sandbox.h) before it loads any kernel
// library. CpuWorker is the app's side: it forwards loads and launches, keeps the watchdog
// (CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S), supervises the sandbox, and replaces the process after a crash,
// exit(), abort() or time-out, saying in plain words what the kernel did. Buffers live in shared memory
// owned by the app, so they survive a replacement; libraries are loaded again when next needed.
#pragma once

#include "core/cpu/cpu_executor.h"

#include <sys/types.h>

#include <memory>

namespace cp {

// Starts no process yet: the first load or launch does.
std::unique_ptr<KernelRunner> make_cpu_worker(const ExecutorOptions& options);

// The running worker's process id (-1 when none), for tests of the replacement; `runner` must come from
// make_cpu_worker.
pid_t cpu_worker_pid(const KernelRunner& runner);

}  // namespace cp
