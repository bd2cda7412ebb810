// Compiling a kernel's source with NVRTC into a cubin: the options we use, diagnostics with line and
// column, ptxas's resource report, and the on-disk cache. Works without a GPU (the `compile` command).
#pragma once

#include "core/engine/engine_api.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cp {

// The architecture to compile for when there is no device to ask (compile-only on a machine without GPU).
inline constexpr const char* kArchWithoutDevice = "sm_90";

// Compiles request.source for `arch` ("sm_90" gives a cubin; "compute_90" gives PTX for the driver to
// JIT). On success `image_out` receives the cubin/PTX and `lowered_name_out` the symbol to load for
// request.kernel_name (the name itself for extern "C" kernels, the mangled name otherwise); `also_lowered_out`
// the symbols of request.also_kernels that exist (and result.also_usage their ptxas figures).
// Small programs that cannot need textures, the device runtime or the runtime API's types compile with
// NVRTC's -minimal (about half the time); one that fails with it is compiled again without it, so errors are
// never -minimal's.
// Never throws; source errors come back as diagnostics with ok == false, and failures of NVRTC itself
// (out of memory, a missing builtins library) additionally set `error`. `module` stays 0.
CompileResult compile_with_nvrtc(const CompileRequest& request, const std::string& arch,
                                 std::vector<std::byte>* image_out, std::string* lowered_name_out = nullptr,
                                 std::map<std::string, std::string>* also_lowered_out = nullptr);

// Whether compile_with_nvrtc tries -minimal for this source (this NVRTC has it, and nothing in the text can need
// what it leaves out).
bool nvrtc_minimal_applies(const std::string& source);

// The CPU backend's check that a file's device code obeys CUDA's rules (e.g. no host function called from a
// kernel): NVRTC's front end only (-fdevice-syntax-only), nothing generated or cached. Error diagnostics
// (empty when it passes); `log` receives NVRTC's log.
std::vector<Diagnostic> check_device_code_with_nvrtc(const CompileRequest& request, std::string* log = nullptr);

// The options compile_with_nvrtc passes (before request.extra_options), for display and tests.
std::vector<std::string> nvrtc_options(const CompileRequest& request, const std::string& arch);

// Makes this process's precompiled header for `#include <cooperative_groups.h>` (nvrtc_pch.h), so that the
// first kernel including it compiles without parsing it. Blocking: call it where nobody waits for it.
void warm_up_nvrtc_pch(const std::string& arch);

// How many times NVRTC actually compiled something in this process (cache hits do not count).
uint64_t nvrtc_invocation_count();

// The CUDA driver's JIT cache folder that NVRTC's confined thread may use: CUDA_CACHE_PATH, else
// $HOME/.nv/ComputeCache (made if missing); nothing when `driver_loaded` is false or CUDA_CACHE_DISABLE=1.
// Where this process has the driver loaded (the CUDA worker), NVRTC goes through the driver's JIT, and
// without its cache a compile of the blur took 40-65 ms instead of 7-9 ms (H200, NVRTC 13.0, driver 580).
std::optional<std::filesystem::path> driver_jit_cache_dir(bool driver_loaded);

// "13.0"
std::string nvrtc_version_text();

// Real architectures this NVRTC can emit cubins for, e.g. {75, 80, 86, 87, 89, 90, ...}.
std::vector<int> nvrtc_supported_archs();

// "sm_XY" for a device of compute capability X.Y when NVRTC supports it; otherwise "compute_NN" for the
// newest supported architecture below it (PTX the driver compiles), or "" when none fits.
std::string nvrtc_arch_for_device(int cc_major, int cc_minor);

}  // namespace cp
