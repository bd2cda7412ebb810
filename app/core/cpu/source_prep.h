// Preparing a kernel's CUDA source for the host compiler: finding __global__ functions, refusing what the
// CPU backend cannot run (with the line), rewriting `extern __shared__` and static `__shared__` arrays (to guarded
// storage) and appending the entry points.
#pragma once

#include "core/types.h"

#include <string>
#include <vector>

namespace cp {

struct KernelDecl {
    std::string name;
    int line = 0;
    bool is_template = false;
};

struct PreparedSource {
    std::string text;                      // what the host compiler compiles (empty when refused)
    std::vector<Diagnostic> diagnostics;   // unsupported features, kernel not found
    std::vector<KernelDecl> kernels;       // every __global__ function, in order of appearance
    std::string kernel_name;               // the kernel the entry points call
};

// The file name the generated entry points are attributed to in compiler messages.
inline constexpr const char* kEntryPointsFile = "cpu-backend-entry-points";

// `kernel_name` empty: the file's only __global__ function. `display_path` is what diagnostics name. Static
// `__shared__` arrays start `shared_align`-aligned (at least their element's alignment): the caller's
// buffer_start_alignment of the device code, 16 in kernels that use 16-byte vector types.
PreparedSource prepare_kernel_source(const std::string& source, const std::string& display_path,
                                     const std::string& kernel_name, size_t shared_align = 1);

// The __global__ functions in `source`, each name once (scan_kernels, kernel_scan.h).
std::vector<KernelDecl> find_kernels(const std::string& source);

// How aligned the kernel's device code needs its buffers' starts: 16 when it names a 16-byte vector type
// (float4, int4, uint4, double2, longlong2, ...: a GPU starts buffers 256-byte aligned, and reading a float
// buffer as float4s relies on that), the largest literal `__align__(N)` / `alignas(N)` of 16 or more (at most
// 256), else 1. Comments, strings and the CPU reference do not count.
size_t buffer_start_alignment(const std::string& source);

// Whole programs (a file with its own main(), compiled against the shim's CUDA runtime, cuda_program.h; the
// main() is found by core/kernel_file/program_file.h).
// The program as the host compiler compiles it with -DCP_SHIM_PROGRAM: the CPU backend's refusals (device code
// only: host code may allocate, copy and launch), runtime calls outside the subset and the CUDA libraries refused
// at their line, launches (`k<<<g, b, s, st>>>(...)`) rewritten to ::cp_rt::launch, the `__shared__` rewrites of a
// kernel's source, and the entry point `cp_program_main` (cp_shim_abi.h). `kernels` lists every __global__
// function; `kernel_name` stays empty.
// `kernels_elsewhere`: the kernels run on a GPU (this library's copies are only probed), so a grid-wide sync is
// not refused.
PreparedSource prepare_program_source(const std::string& source, const std::string& display_path,
                                      size_t shared_align = 1, bool kernels_elsewhere = false);

// A header of the program's own (its folder, or a -I DIR) as the host compiler takes it: its kernels, launches and
// `__shared__` arrays prepared as the program's file's are, refusals added to `diagnostics` with the header's `name`
// and line. A header with none of these comes back as it is.
std::string prepare_program_header(const std::string& header, const std::string& name, size_t shared_align,
                                   bool kernels_elsewhere, std::vector<Diagnostic>& diagnostics);

// Symbols the generated entry points export for `kernel`.
std::string plain_entry_symbol(const std::string& kernel);
std::string fiber_entry_symbol(const std::string& kernel);
std::string params_symbol(const std::string& kernel);

}  // namespace cp
