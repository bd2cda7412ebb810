// The host C++ compiler as the CPU backend's kernel compiler: finding it and the shim, the command line,
// turning its messages into Diagnostics, and the compile cache of kernel libraries (.so files).
#pragma once

#include "core/engine/engine_api.h"
#include "core/result.h"
#include "core/types.h"
#include "core/worker/sandbox.h"

#include <filesystem>
#include <string>
#include <vector>

namespace cp {

struct HostCompiler {
    std::string path;     // absolute path of g++ / clang++
    std::string version;  // first line of `--version`
};

// `preferred` (if not empty), else $CXX, else g++, clang++, c++ from PATH.
Result<HostCompiler> find_host_compiler(const std::string& preferred = {});

struct ShimLocation {
    std::filesystem::path dir;  // holds cuda_shim.h and include/
    std::string fingerprint;    // hash of every file in it: part of the cache key
};

// $CUDA_PLAYGROUND_SHIM_DIR, else the source tree's shim baked in at build time, else next to the binary.
Result<ShimLocation> find_shim();

// The compile cache folder: $CUDA_PLAYGROUND_CACHE_DIR/cpu, else $XDG_CACHE_HOME/cuda-playground/cpu, else
// ~/.cache/cuda-playground/cpu. Empty when CUDA_PLAYGROUND_NO_CACHE is set or no home is known.
std::filesystem::path cpu_cache_dir();
// The cache folder a CpuBackendOptions::cache_dir names: empty, cpu_cache_dir(); "-", none (an empty path).
std::filesystem::path cpu_cache_dir_for(const std::string& option);

// 32 hex digits: two independent 64-bit FNV-1a hashes of `inputs`.
std::string cpu_cache_key(const std::string& inputs);

// Options for the host compiler, and the request's NVRTC options it does not use (reported in the log).
struct HostCompileOptions {
    std::vector<std::string> flags;
    std::vector<std::string> ignored;
    std::vector<std::string> from_user;  // the flags of `flags` that came from the options (-D, -U, -I)
};
HostCompileOptions host_compile_options(const ShimLocation& shim, const std::vector<std::string>& extra_options);

// What the host compiler (and the assembler and linker it starts) may read: the system's compiler folders, the
// compiler's own installation and the shim; write: `root` (the build folder). Not the user's files: a kernel's
// `asm(".incbin ...")` or computed #include of anything else fails. The debugger's clang runs under it too.
FileAccessPolicy host_compiler_policy(const HostCompiler& compiler, const ShimLocation& shim,
                                      const std::filesystem::path& root);

// Flags that make `compiler` call the shim's bounds check before every load and store of a kernel
// (access_bounds.h); empty for a compiler that cannot (clang: the guard pages alone catch what they can) and
// when CUDA_PLAYGROUND_CPU_ACCESS_CHECKS=0.
std::vector<std::string> access_check_flags(const HostCompiler& compiler);

// Parses "file:line:col: error: message" lines. Errors inside the shim are moved to the user's line that
// led there; errors in the generated entry points are explained in terms of the kernel.
std::vector<Diagnostic> parse_compiler_messages(const std::string& log, const std::string& user_path,
                                                const std::string& kernel_name, int kernel_line);

struct CpuCompileOutput {
    bool ok = false;
    std::vector<Diagnostic> diagnostics;
    std::string log;
    std::vector<std::string> options;
    bool cache_hit = false;
    std::filesystem::path library;        // the built .so (when ok)
    std::filesystem::path temporary_dir;  // non-empty: delete when the library is no longer needed
    std::string kernel_name;              // the kernel the library's entry points call
    bool nvrtc_refused = false;           // the diagnostics are NVRTC's (its device-code check failed)
    bool host_compiler_ran = false;       // the host compiler was started (not refused before, not cached)
    bool shim_precompiled = false;        // it read the shim precompiled (shim_pch_header), not as text
    size_t buffer_align = 1;              // how aligned the device code needs buffer starts (buffer_start_alignment)
};

// The whole compile of a kernel: its local headers, the prepared source, the cache, NVRTC's check of the
// device code and the host compiler (confined, core/worker/sandbox.h), storing in the cache.
CpuCompileOutput compile_for_cpu(const CompileRequest& request, const HostCompiler& compiler, const ShimLocation& shim,
                                 const std::filesystem::path& cache_dir);

// Plain host C++ (e.g. a lesson's CPU reference) compiled the same way into a library whose extern "C"
// functions can be called by name (host_code.h): the same shim, flags, headers, cache and confinement.
struct HostLibraryRequest {
    std::string source;                // the whole file
    std::string path;                  // the file it came from (messages; its folder's headers)
    std::vector<std::string> defines;  // e.g. {"PLAYGROUND_REFERENCE"}
};
CpuCompileOutput compile_host_library(const HostLibraryRequest& request, const HostCompiler& compiler,
                                      const ShimLocation& shim, const std::filesystem::path& cache_dir);

// A whole program (a file with its own main(), source_prep.h's prepare_program_source) compiled against the shim's
// CUDA runtime (cuda_program.h, -DCP_SHIM_PROGRAM) with the per-access checks, into a library whose
// `cp_program_main` the CPU worker calls (cpu_executor.h, run_program). Its own folder's headers and those of
// `include_dirs` (-I DIR) are copied into the build folder; nothing else outside the toolkit is read.
struct ProgramCompileRequest {
    std::string source;
    std::string path;
    std::vector<std::string> include_dirs;
    std::vector<std::string> extra_options;  // -D, -U, -std= as for kernels
    // Its kernels run on a GPU: this library's copies are only probed (CP_RT_KERNEL_ENTRY), so what the CPU backend
    // cannot run (a grid-wide sync) compiles here (-DCP_SHIM_KERNELS_ELSEWHERE).
    bool kernels_elsewhere = false;
};
CpuCompileOutput compile_program_library(const ProgramCompileRequest& request, const HostCompiler& compiler,
                                         const ShimLocation& shim, const std::filesystem::path& cache_dir);

}  // namespace cp
