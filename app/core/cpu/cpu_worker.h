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

// What the app's side knows of the device a GPU program worker opened (its greeting): "" for a CPU worker, else
// JSON (ProgramDeviceHooks::facts); an empty object when it could not start. `runner` must come from
// make_cpu_worker; starts the process when it is not running.
std::string cpu_worker_device_facts(KernelRunner& runner);

// ---- in the worker process ----
struct WorkerEntry;
// The worker's loop: the greeting, the sandbox, then requests until the app closes the connection. `device` (null:
// none) runs whole programs' kernels on a GPU: the worker opens it before its sandbox (ProgramDeviceHooks::prepare).
int serve_cpu_worker(const WorkerEntry& entry, const ProgramDeviceHooks* device);
// The variable that starts this executable as a GPU program worker (core/backends/gpu_program_worker.cpp), beside
// the CPU worker's own CP_CPU_WORKER.
inline constexpr const char* kGpuProgramWorkerEnv = "CP_GPU_PROGRAM_WORKER";

}  // namespace cp
