// The device a whole program's kernels run on, seen from the worker that runs its host code (core/cpu's program
// op): the CPU worker's own threads, or a GPU through the CUDA driver (core/cuda/cuda_program_device.h). The
// worker hands the program's runtime (cuda_program.h) the device's cp_abi::ProgramHost table; the device tells each
// launch as it ends. Backend-neutral: the CPU side includes this, never the CUDA side's headers.
#pragma once

#include "core/engine/program_api.h"
#include "core/result.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cp_abi {
struct ProgramHost;
}

namespace cp {

// Where in a kernel library something happened, for the app to turn into a source line with addr2line:
// addresses relative to the library's load base, best first.
struct CodeSite {
    ModuleId module = 0;
    std::vector<uint64_t> offsets;
    std::string in_function;  // " in memcpy" when it happened inside a library function the kernel called
};

// What a launch did, told as it starts (`running`) and as it ends.
struct ProgramLaunchRecord {
    std::string kernel;  // as written at the launch
    int line = 0;
    std::string file;  // the program's own header the launch is written in (`line` is its); empty: the program's file
    Dim3 grid, block;
    uint64_t shared_bytes = 0;
    uint64_t stream = 0;  // 0: the default stream; else 1, 2... in the order the program made them
    double ms = 0;        // CPU: wall time of the launch on the workers; GPU: its time between CUDA events
    int cuda_error = 0;   // the cudaError_t the program is to see (0: none)
    std::optional<EngineError> error;  // refused or faulted, in the playground's words
    std::optional<CodeSite> site;      // with error: where the crash was
    bool running = false;              // told as it starts (then again, with the rest, as it ends)
    uint64_t entry = 0;  // the kernel function's offset in the program's host library (its entry probe); 0: unknown
    bool changed = false;  // made with a ProgramRunRequest::changes entry
    std::vector<ProgramArg> args;
    std::vector<ProgramBuffer> buffers;  // before_at / after_at: offsets in the capture file (capture_fd)
};
using ProgramLaunchSink = std::function<void(const ProgramLaunchRecord&)>;

// A program's device code for a GPU (program_device_compile.h): the module and, by the address of each kernel
// instantiation and device variable in the program's host library (relative to its load base), its name there.
struct ProgramDeviceImage {
    std::string arch;                       // "sm_90"
    std::vector<std::byte> image;           // the cubin
    std::map<uint64_t, std::string> kernels;  // host function's offset -> lowered name in the module
    std::map<uint64_t, std::string> symbols;  // host variable's offset -> lowered name of its device twin
    std::map<uint64_t, std::string> kernel_names;  // host function's offset -> the kernel as C++ names it (messages)
    // Of `symbols`, the __managed__ variables: one variable for host and device in CUDA, kept in step here (the
    // device's copied to the host's twin when the program waits for the device; the host's to the device's before a
    // launch when the host changed it).
    std::set<uint64_t> managed;
};

// One program's run on a device.
struct ProgramDeviceRun {
    const ProgramDeviceImage* image = nullptr;
    uintptr_t library_base = 0;  // where the host library is loaded in this process
    uint64_t memory_limit = 0;   // device, managed and pinned allocations together
    int capture_fd = -1;         // ProgramRunRequest::capture_fd / capture_limit
    uint64_t capture_limit = 0;
    const ProgramLaunchSink* on_launch = nullptr;
    const std::map<size_t, ProgramLaunchChange>* changes = nullptr;  // ProgramRunRequest::changes
};

// Applies `change` to a launch being made: its grid and block, and the bytes of each scalar argument whose size
// matches (`values[i]`, described by `params[i]`'s size and is_pointer, overwritten in place: they are the launch's
// own copies); true when anything was changed.
bool apply_launch_change_to_grid(const ProgramLaunchChange& change, Dim3& grid, Dim3& block);
template <class Param>
bool apply_launch_change(const ProgramLaunchChange& change, Dim3& grid, Dim3& block, const void* const* values,
                         const Param* params, size_t count) {
    bool changed = apply_launch_change_to_grid(change, grid, block);
    for (const auto& [index, bytes] : change.scalars) {
        if (index >= count || params[index].is_pointer || !values[index] || bytes.size() != params[index].size)
            continue;
        std::memcpy(const_cast<void*>(values[index]), bytes.data(), bytes.size());
        changed = true;
    }
    return changed;
}

class ProgramDevice {
public:
    virtual ~ProgramDevice() = default;
    virtual const cp_abi::ProgramHost* table() const = 0;
    // After main() returned (or exit() was called): waits for the device and tells the launches not yet told.
    virtual void finish() = 0;
    // The name of the device allocation (cudaMalloc) `address` lies in, or null: a host crash there read device memory.
    virtual const std::string* device_allocation_at(uintptr_t address) const = 0;
};

// What a worker that runs programs on a device needs of it: `prepare` runs once in the fresh worker before its
// sandbox (the driver opens its device files then: their descriptors come back, the only ones the sandbox lets the
// worker control), and `facts` says what device it is (JSON for the app: name, cc_major, cc_minor); `start` makes
// one run's device.
struct ProgramDeviceHooks {
    std::string name;  // "cuda"
    std::function<Result<std::vector<int>>()> prepare;
    std::function<std::string()> facts;
    std::function<Result<std::unique_ptr<ProgramDevice>>(const ProgramDeviceRun&)> start;
};

}  // namespace cp
