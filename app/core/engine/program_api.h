// Whole programs (a file with its own main()), backend-neutral: what to run, and what came of it. A backend that
// can run programs offers a ProgramRunner through the registry (core/backends/registry.h, BackendEntry::programs);
// the command line and the window only present what it returns.
#pragma once

#include "core/engine/engine_api.h"
#include "core/types.h"

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cp {

// A change to one launch of a program: another grid, block or scalar argument (by argument index: its new bytes, as
// many as the argument has, ProgramArg::size). The window re-runs a launch alone with one (program_replay.h), or the
// whole program with it applied when the program reaches that launch (ProgramRequest::changes).
struct ProgramLaunchChange {
    std::optional<Dim3> grid, block;
    std::map<size_t, std::vector<std::byte>> scalars;
};

struct ProgramRequest {
    std::string source;                     // the whole file
    std::string path;                       // where it came from (messages; its folder's headers)
    std::vector<std::string> args;          // the program's arguments (argv[1] on); argv[0] is the file's stem
    std::vector<std::string> include_dirs;  // -I DIR: further folders its #include "..." and <...> may read
    double time_limit_s = 0;                // the whole run; 0: the backend's default
    // Keep each launch's reachable buffers before and after it (ProgramRun::capture_data), up to this many bytes in
    // all; 0: none. Launches past it are recorded without data, and say so.
    uint64_t capture_limit = 0;
    // By launch index (0: the program's first launch, refused ones counted): what to change in it as it is made.
    std::map<size_t, ProgramLaunchChange> changes;
};

// One argument of a launch as the program passed it.
struct ProgramArg {
    uint32_t size = 0;       // bytes
    bool pointer = false;    // a pointer (the kernel's parameter type as the argument converts, `float*`)
    std::string bytes_hex;   // its bytes, little-endian as in memory (at most 64 shown)
    std::string buffer;      // a pointer into one of the program's allocations: its name (`d_in`), else empty
    uint64_t offset = 0;     // ... and how many bytes into it (`d_in + RADIUS`: 12)
};
// An allocation a launch can reach (one of its pointer arguments points into it), kept before and after the launch
// when the capture has room (ProgramRequest::capture_limit).
struct ProgramBuffer {
    std::string name;
    uint64_t bytes = 0;
    bool captured = false;      // false: past the capture's size limit (or no capture asked): no data
    uint64_t before_at = 0;     // where its bytes before the launch start in ProgramRun::capture_data
    uint64_t after_at = 0;      // ... and after it (a refused launch, which ran nothing, has no after)
    bool has_after = false;
    // What it holds as a script's NumPy array did ("uint8", {480, 640, 3}: a picture), when a script told; empty for
    // a C++ program's, whose elements are its kernel parameter's type.
    std::string dtype;
    std::vector<uint64_t> shape;
};

// One launch as the program made it, and what came of it.
struct ProgramLaunch {
    std::string kernel;  // as written at the launch (`reduce<float>`)
    std::string instance;  // the instantiation it ran, as C++ names it (`axpy<float>` for `axpy<<<...>>>`); empty: unknown
    int line = 0;        // the launch's line
    std::string file;    // the program's own header the launch is written in (`line` is its); empty: the program
    Dim3 grid, block;
    uint64_t shared_bytes = 0;
    uint64_t stream = 0;  // 0: the default stream; else 1, 2... in the order the program made them
    double ms = 0;
    int cuda_error = 0;                // the cudaError_t the program saw for it (0: none)
    bool changed = false;              // made with a ProgramRequest::changes entry, not as the program wrote it
    // Where the kernel is defined: one of the program's own headers (empty: the program's file), and whether its name
    // has several definitions (overloads). A launch re-runs alone only of a kernel defined once, in the file.
    std::string kernel_header;
    bool kernel_overloaded = false;
    std::optional<EngineError> error;  // refused (block 2048) or faulted (thread, block, line, element)
    std::vector<ProgramArg> args;
    std::vector<ProgramBuffer> buffers;
    // A script's launch: the module its kernel was compiled from (the source as padded to the script's lines, its
    // options and include folders). Empty for a C++ program's, whose device code is the program's own.
    std::string module_source;
    std::vector<std::string> module_options, module_include_dirs;
};

struct ProgramRun {
    // Compiling.
    bool compiled = false;
    std::vector<Diagnostic> diagnostics;
    std::string compile_log;
    double compile_ms = 0;
    bool cache_hit = false;
    // Running.
    enum class End {
        NotRun,    // it did not compile, or could not start (`error` says why)
        Returned,  // main() returned `exit_status`
        Exited,    // it called exit(`exit_status`)
        Aborted,   // abort(): a failed assert() in host code, std::terminate (exit_status 134)
        Crashed,   // its host code crashed (`error`, with the line)
        Stopped,   // the time limit stopped it (`error` names the launch or the host code)
    } end = End::NotRun;
    int exit_status = 0;
    std::string stdout_text, stderr_text;
    // What the host code tried and the sandbox refused (writing a file, reading one outside the program's folder,
    // starting a program), in words; the call failed in the program, which carried on.
    std::vector<std::string> refused;
    bool output_truncated = false;  // more than 16 MiB of either: the rest was dropped
    std::vector<ProgramLaunch> launches;
    std::optional<EngineError> error;
    double run_ms = 0;
    std::string device;  // where its kernels ran, in words
    std::string capture_data;  // the captured buffers' bytes, at ProgramBuffer::before_at / after_at
};

// An argument's bytes as ProgramArg::bytes_hex writes them (two lower-case hex digits each, in memory order), at most
// `max_bytes` of them; and back.
std::string hex_of_bytes(const void* data, size_t size, size_t max_bytes = 64);
std::vector<std::byte> bytes_of_hex(const std::string& hex);

// Where a launch is written, for messages: "line 32", or "header_kernels.cuh:36" for one in the program's header.
std::string launch_site_text(const ProgramLaunch& launch);

// "returned", "exited", "aborted", "crashed", "stopped", "not_run": the end's name in the JSON.
const char* program_end_name(ProgramRun::End end);

// CUDA's name for a cudaError_t value a program can see from the playground's runtime ("cudaErrorIllegalAddress");
// "cudaError N" for another.
std::string cuda_error_name(int code);

class ProgramRunner {
public:
    virtual ~ProgramRunner() = default;
    // Compiles and runs the program; `on_launch` hears of each launch as it ends (on another thread).
    virtual ProgramRun run(const ProgramRequest& request,
                           const std::function<void(const ProgramLaunch&)>& on_launch = {}) = 0;
};

}  // namespace cp
