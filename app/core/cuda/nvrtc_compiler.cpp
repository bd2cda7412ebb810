// NVRTC compilation with a disk cache: options, kernel-name lowering (extern "C" and C++ names alike),
// diagnostics and the ptxas resource report.
#include "core/cuda/nvrtc_compiler.h"
#include "core/cuda/nvrtc_pch.h"

#include "core/cuda/cubin_cache.h"
#include "core/cuda/nvrtc_log.h"
#include "core/cuda/nvrtc_std_headers.h"

#include <nvrtc.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string_view>

namespace cp {

namespace {

std::atomic<uint64_t> g_nvrtc_invocations{0};

// NVRTC names the file after the path we give it; the name-expression machinery reports under this one.
constexpr const char* kNameMapFile = "__nv_name_map";

std::vector<std::string> cuda_include_dirs() {
    std::vector<std::string> candidates;
#ifdef CP_CUDA_INCLUDE_DIR
    // CMake may hand over a list ("a;b").
    std::string_view built_in = CP_CUDA_INCLUDE_DIR;
    while (!built_in.empty()) {
        const size_t semi = built_in.find(';');
        candidates.emplace_back(built_in.substr(0, semi));
        if (semi == std::string_view::npos) break;
        built_in.remove_prefix(semi + 1);
    }
#endif
    // The binary may run on a machine whose toolkit lives elsewhere than where it was built.
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* v = std::getenv(var); v && *v) candidates.push_back(std::string(v) + "/include");
    candidates.emplace_back("/usr/local/cuda/include");
    std::vector<std::string> found;
    std::error_code ec;
    for (const auto& dir : candidates)
        if (!dir.empty() && std::filesystem::exists(std::filesystem::path(dir) / "cuda.h", ec) &&
            std::find(found.begin(), found.end(), dir) == found.end()) {
            found.push_back(dir);
            break;  // one toolkit's headers; mixing versions would be worse than none
        }
    return found;
}

std::string display_path(const CompileRequest& request) {
    return request.path.empty() ? std::string("kernel.cu") : request.path;
}

int count_lines(const std::string& text) {
    int n = int(std::count(text.begin(), text.end(), '\n'));
    if (!text.empty() && text.back() != '\n') ++n;
    return n;
}

// Name-lookup errors are reported against NVRTC's internal "__nv_name_map" file; say it in the user's terms.
void explain_name_lookup(const CompileRequest& request, std::vector<Diagnostic>& diags) {
    const auto is_name_map = [](const Diagnostic& d) { return d.file == kNameMapFile; };
    if (std::none_of(diags.begin(), diags.end(), is_name_map)) return;
    const bool not_global = std::any_of(diags.begin(), diags.end(), [&](const Diagnostic& d) {
        return is_name_map(d) && d.message.find("non-__global__") != std::string::npos;
    });
    diags.erase(std::remove_if(diags.begin(), diags.end(), is_name_map), diags.end());
    if (has_errors(diags)) return;  // the real errors explain it
    Diagnostic d;
    d.file = display_path(request);
    d.message = not_global ? "`" + request.kernel_name + "` is not a __global__ function, so it cannot be launched"
                           : "no __global__ function named `" + request.kernel_name +
                                 "` in this file (check the kernel's name; templates need their arguments, "
                                 "e.g. `scale<float>`)";
    diags.push_back(std::move(d));
}

std::string inputs_fingerprint(const CompileRequest& request, const std::string& arch,
                               const std::vector<std::string>& options) {
    std::string s = "cuda-playground nvrtc cache 1";
    const auto add = [&s](std::string_view part) {
        s += '\0';
        s += std::to_string(part.size());
        s += ':';
        s += part;
    };
    add(nvrtc_version_text());
    add(arch);
    for (const auto& o : options) add(o);
    for (const auto& h : nvrtc_std_headers()) {
        add(h.name);
        add(h.contents);
    }
    add(request.kernel_name);
    add(display_path(request));
    add(request.source);
    return s;
}

std::string program_log(nvrtcProgram program) {
    size_t size = 0;
    if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1) return {};
    std::string log(size, '\0');
    if (nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS) return {};
    log.resize(size - 1);  // the size counts the terminating NUL
    return log;
}

// The compiled image: a cubin for real architectures, PTX (with its terminating NUL, as
// cuModuleLoadData expects) for virtual ones.
std::vector<std::byte> program_image(nvrtcProgram program, bool cubin) {
    size_t size = 0;
    if ((cubin ? nvrtcGetCUBINSize(program, &size) : nvrtcGetPTXSize(program, &size)) != NVRTC_SUCCESS) return {};
    std::vector<std::byte> image(size);
    auto* out = reinterpret_cast<char*>(image.data());
    if ((cubin ? nvrtcGetCUBIN(program, out) : nvrtcGetPTX(program, out)) != NVRTC_SUCCESS) return {};
    return image;
}

EngineError nvrtc_failure(nvrtcResult r, const std::string& what) {
    return EngineError{nvrtcGetErrorString(r), what + " failed: " + nvrtcGetErrorString(r),
                       "this is a problem with the NVRTC installation, not with the kernel", false};
}

class ProgramGuard {
public:
    explicit ProgramGuard(nvrtcProgram p) : p_(p) {}
    ~ProgramGuard() { nvrtcDestroyProgram(&p_); }
    ProgramGuard(const ProgramGuard&) = delete;
    ProgramGuard& operator=(const ProgramGuard&) = delete;

private:
    nvrtcProgram p_;
};

void compile_uncached(const CompileRequest& request, const std::string& arch, CompileResult& result,
                      CachedCompile& out) {
    const std::string path = display_path(request);
    std::vector<const char*> header_names, header_contents;
    for (const auto& h : nvrtc_std_headers()) {
        header_names.push_back(h.name);
        header_contents.push_back(h.contents);
    }
    nvrtcProgram program = nullptr;
    nvrtcResult r = nvrtcCreateProgram(&program, request.source.c_str(), path.c_str(), int(header_names.size()),
                                       header_contents.data(), header_names.data());
    if (r != NVRTC_SUCCESS) {
        result.error = nvrtc_failure(r, "nvrtcCreateProgram");
        return;
    }
    ProgramGuard guard(program);
    if (!request.kernel_name.empty()) {
        r = nvrtcAddNameExpression(program, request.kernel_name.c_str());
        if (r != NVRTC_SUCCESS) {
            result.error = nvrtc_failure(r, "nvrtcAddNameExpression");
            return;
        }
    }
    // The PCH option is not in result.options: the cubin does not depend on it, so the cache key does not.
    const std::vector<std::string> pch = pch_options(request.source, result.options);
    std::vector<const char*> argv;
    for (const auto& o : result.options) argv.push_back(o.c_str());
    for (const auto& o : pch) argv.push_back(o.c_str());
    ++g_nvrtc_invocations;
    r = nvrtcCompileProgram(program, int(argv.size()), argv.data());
    pch_record(pch, nvrtcGetPCHCreateStatus(program) == NVRTC_SUCCESS);
    out.log = program_log(program);
    result.log = out.log;
    result.diagnostics = parse_nvrtc_diagnostics(out.log, path, count_lines(request.source));
    if (r != NVRTC_SUCCESS) {
        explain_name_lookup(request, result.diagnostics);
        if (!has_errors(result.diagnostics)) {
            Diagnostic d;
            d.file = path;
            d.message = std::string("NVRTC failed: ") + nvrtcGetErrorString(r);
            result.diagnostics.push_back(std::move(d));
        }
        if (r != NVRTC_ERROR_COMPILATION && r != NVRTC_ERROR_INVALID_OPTION)
            result.error = nvrtc_failure(r, "nvrtcCompileProgram");
        return;
    }
    if (!request.kernel_name.empty()) {
        const char* lowered = nullptr;
        if (nvrtcGetLoweredName(program, request.kernel_name.c_str(), &lowered) == NVRTC_SUCCESS && lowered)
            out.lowered_name = lowered;
    }
    const bool cubin = arch.rfind("sm_", 0) == 0;
    out.image = program_image(program, cubin);
    if (out.image.empty()) {
        result.error = nvrtc_failure(NVRTC_ERROR_INTERNAL_ERROR, cubin ? "nvrtcGetCUBIN" : "nvrtcGetPTX");
        return;
    }
    out.usage = parse_ptxas_usage(out.log, out.lowered_name);
}

// A name that resolves to a __device__ function compiles fine but cannot be launched: say so early.
bool check_is_entry(const CompileRequest& request, const CachedCompile& compiled, CompileResult& result) {
    const auto entries = ptxas_entry_functions(compiled.log);
    if (request.kernel_name.empty() || compiled.lowered_name.empty() || entries.empty()) return true;
    if (std::find(entries.begin(), entries.end(), compiled.lowered_name) != entries.end()) return true;
    Diagnostic d;
    d.file = display_path(request);
    d.message = "`" + request.kernel_name + "` is not a __global__ function, so it cannot be launched";
    result.diagnostics.push_back(std::move(d));
    return false;
}

}  // namespace

std::vector<std::string> nvrtc_options(const CompileRequest& request, const std::string& arch) {
    std::vector<std::string> options = {
        "-arch=" + arch,
        "-std=c++17",
        "-lineinfo",  // source lines in compute-sanitizer and profiler reports
        // Helper functions written without __device__ still compile (as they do on the CPU backend).
        "-default-device",
    };
    if (arch.rfind("sm_", 0) == 0) options.emplace_back("-Xptxas=-v");  // the resource report we parse
    for (const auto& dir : cuda_include_dirs()) {
        options.push_back("-I" + dir);
        // libcu++ (<cuda/std/...>) lives in the toolkit's cccl folder.
        std::error_code ec;
        if (std::filesystem::is_directory(std::filesystem::path(dir) / "cccl", ec)) options.push_back("-I" + dir + "/cccl");
    }
    if (!request.path.empty() && request.source.find("#include \"") != std::string::npos) {
        // Lets a kernel include a header that sits next to it. Only then: a kernel's folder in the options
        // would keep kernels from different folders from sharing a precompiled header (nvrtc_pch.h).
        std::error_code ec;
        const auto dir = std::filesystem::path(request.path).parent_path();
        if (!dir.empty() && std::filesystem::is_directory(dir, ec)) options.push_back("-I" + dir.string());
    }
    return options;
}

CompileResult compile_with_nvrtc(const CompileRequest& request, const std::string& arch,
                                 std::vector<std::byte>* image_out, std::string* lowered_name_out) {
    const auto start = std::chrono::steady_clock::now();
    CompileResult result;
    try {
        result.options = nvrtc_options(request, arch);
        result.options.insert(result.options.end(), request.extra_options.begin(), request.extra_options.end());

        // Headers included with quotes are not part of the key, so such sources are always recompiled.
        const bool cacheable = request.source.find("#include \"") == std::string::npos;
        const auto cache_dir = cacheable ? cubin_cache_dir() : std::filesystem::path();
        const std::string key = cache_key(inputs_fingerprint(request, arch, result.options));

        CachedCompile compiled;
        if (auto hit = load_cached_compile(cache_dir, key)) {
            compiled = std::move(*hit);
            result.cache_hit = true;
            result.log = compiled.log;
            result.diagnostics =
                parse_nvrtc_diagnostics(compiled.log, display_path(request), count_lines(request.source));
        } else {
            compile_uncached(request, arch, result, compiled);
            if (!compiled.image.empty() && !has_errors(result.diagnostics) && !result.error)
                store_cached_compile(cache_dir, key, compiled);
        }
        result.ok = !compiled.image.empty() && !result.error && !has_errors(result.diagnostics) &&
                    check_is_entry(request, compiled, result);
        if (result.ok) {
            result.usage = compiled.usage;
            if (image_out) *image_out = std::move(compiled.image);
            if (lowered_name_out) *lowered_name_out = compiled.lowered_name;
        }
    } catch (const std::exception& e) {
        result.ok = false;
        result.error = EngineError{"internal", std::string("compiling failed unexpectedly: ") + e.what(), "", false};
    }
    result.compile_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return result;
}

void warm_up_nvrtc_pch(const std::string& arch) {
    CompileRequest request;
    request.source = "#include <cooperative_groups.h>\n__global__ void cp_pch_warm_up() {}\n";
    request.load = false;
    CompileResult result;
    result.options = nvrtc_options(request, arch);
    CachedCompile unused;
    compile_uncached(request, arch, result, unused);  // never cached: its point is the PCH it leaves behind
}

uint64_t nvrtc_invocation_count() { return g_nvrtc_invocations.load(); }

std::string nvrtc_version_text() {
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
    return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<int> nvrtc_supported_archs() {
    int count = 0;
    if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0) return {};
    std::vector<int> archs(static_cast<size_t>(count));
    if (nvrtcGetSupportedArchs(archs.data()) != NVRTC_SUCCESS) return {};
    std::sort(archs.begin(), archs.end());
    return archs;
}

std::string nvrtc_arch_for_device(int cc_major, int cc_minor) {
    const int cc = cc_major * 10 + cc_minor;
    const auto archs = nvrtc_supported_archs();
    if (std::find(archs.begin(), archs.end(), cc) != archs.end()) return "sm_" + std::to_string(cc);
    // A device newer than this NVRTC: hand the driver PTX for the newest architecture below it.
    int best = 0;
    for (const int a : archs)
        if (a < cc) best = a;
    return best ? "compute_" + std::to_string(best) : std::string();
}

}  // namespace cp
