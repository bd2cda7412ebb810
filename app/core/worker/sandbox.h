// Confining untrusted code: the sandbox a worker process enters before it loads kernel code (a seccomp
// filter whose refusals the app decides and reports, plus Landlock where the kernel offers it), and the
// file-system confinement of compiler threads (NVRTC in process, the host compiler's child processes).
// Probed at run time: what this machine confines is what `cuda-playground info` says.
#pragma once

#include "core/result.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cp {

struct SandboxSupport {
    bool seccomp_notify = false;  // seccomp filters whose refusals a supervisor decides (Linux 5.9+)
    int landlock_abi = 0;         // Landlock's ABI version; 0 when the kernel does not offer Landlock
    std::string kernel_release;   // uname -r
};

// What this machine offers (asks the kernel; changes nothing). Computed once.
const SandboxSupport& sandbox_support();

// Plain-words lines for `info` and the docs: what kernel code and the compilers can and cannot do here.
std::vector<std::string> sandbox_summary(const SandboxSupport& support);

// ---- in a worker process that is about to load untrusted code ---------------------------------------------

// Applies Landlock (when offered: no file may be opened by path, no TCP, no signals or abstract sockets
// outside the worker) and the seccomp filter (threads, memory, time and I/O on descriptors the worker
// already has are allowed; starting programs, sockets, opening or changing files, signalling other
// processes and everything else are held for the app's supervisor). Call it while the process has one
// thread: threads created later inherit the filter. Returns the filter's listener descriptor, which the
// worker must hand to the app and close (-1 on kernels without user notification, where refused calls just
// fail); an Error when the sandbox could not be applied (the worker must then refuse to run kernel code).
//
// A GPU program worker (core/backends/gpu_program_worker.cpp) opens the CUDA driver first, which starts threads of
// its own and opens the device files: `device_fds` are the descriptors whose ioctl requests the filter lets through
// (the driver's only way to the GPU; other descriptors keep the terminal questions only), and `driver_threads` says
// the threads already running are the driver's. They stay outside the filter and Landlock (both confine the
// calling thread and the threads it starts later, which run the program's code); the driver runs no user code.
struct WorkerSandboxOptions {
    std::vector<int> device_fds;
    bool driver_threads = false;
};
Result<int> enter_worker_sandbox(const WorkerSandboxOptions& options = {});

// ---- compilers ------------------------------------------------------------------------------------------

// What a compiler may touch: everything else on the file system is refused (where Landlock is offered).
struct FileAccessPolicy {
    std::vector<std::filesystem::path> read;        // read (and execute) beneath these folders or files
    std::vector<std::filesystem::path> read_write;  // also create, write and delete beneath these folders
    std::string label;                              // "NVRTC", "the host compiler": for messages
};

// Runs `task` on a thread confined to `policy` (one thread per distinct policy, started on first use and
// kept; child processes it starts inherit the confinement). `confined` tells whether Landlock applied.
void run_confined(const FileAccessPolicy& policy, const std::function<void()>& task, bool* confined = nullptr);

// ---- scripts --------------------------------------------------------------------------------------------

// Confines this process, which must have one thread, before it starts a script's interpreter (core/worker/
// script_process.h): Landlock (reading beneath `policy.read`, also writing beneath `policy.read_write`, no TCP,
// no signals or abstract sockets outside) and a seccomp filter that answers EPERM to starting processes (threads
// are fine), sockets other than Unix ones, tracing, and the calls that administer the machine (mounting, modules,
// namespaces, keys, io_uring, perf, bpf). An Unsupported error when Landlock is not offered: a script's file
// access could not be confined, so it must not run.
std::optional<Error> enter_script_sandbox(const FileAccessPolicy& policy);

}  // namespace cp
