// NVRTC compilation with a disk cache: options, the kernel's own headers in memory, kernel-name lowering
// (extern "C" and C++ names alike), diagnostics and the ptxas resource report. NVRTC itself runs on a
// thread confined to the toolkit's files (core/worker/sandbox.h).
#include "core/toolkit/nvrtc_compiler.h"
#include "core/clock.h"
#include "core/kernel_file/kernel_file_parts.h"
#include "core/kernel_file/reference_section.h"
#include "core/toolkit/nvrtc_pch.h"

#include "core/toolkit/cubin_cache.h"
#include "core/toolkit/nvrtc_log.h"
#include "core/toolkit/nvrtc_std_headers.h"
#include "core/kernel_file/local_includes.h"
#include "core/worker/sandbox.h"

#include <dlfcn.h>
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

// Messages in a local header name it as NVRTC knows it ("sub/util.h"): say where it is.
void locate_header_diagnostics(const CompileRequest& request, const LocalIncludes& includes, std::vector<Diagnostic>& diags) {
    const std::filesystem::path folder = std::filesystem::path(request.path).parent_path();
    for (Diagnostic& d : diags)
        for (const LocalHeader& h : includes.headers)
            if (d.file == h.name) d.file = (folder / h.name).string();
}

// A file the confined compiler may not read (a computed #include): say why, not just "Permission denied".
void explain_refused_reads(std::vector<Diagnostic>& diags) {
    for (Diagnostic& d : diags)
        if (d.message.find("cannot open source file") != std::string::npos && d.message.find("Permission denied") != std::string::npos)
            d.message += " (the compiler may read only the toolkit's headers and the kernel file's own folder)";
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
                               const std::vector<std::string>& options, const LocalIncludes& includes) {
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
    for (const auto& k : request.also_kernels) add(k);
    add(display_path(request));
    add(request.source);
    add(local_includes_fingerprint(includes));
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
    return engine_error(ErrorKind::Internal, nvrtcGetErrorString(r), what + " failed: " + nvrtcGetErrorString(r),
                        "this is a problem with the NVRTC installation, not with the kernel");
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

bool cuda_driver_loaded() {
    void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);  // loads nothing: only asks
    if (driver) dlclose(driver);
    return driver != nullptr;
}

// NVRTC reads the toolkit's headers and loads its builtins library; with Landlock it may read nothing else
// (a computed #include of another file fails as if the file did not exist), except the driver's JIT cache
// where the driver is loaded (driver_jit_cache_dir).
FileAccessPolicy nvrtc_file_policy(bool driver_loaded, bool with_pch) {
    FileAccessPolicy p;
    p.label = "NVRTC";
    if (with_pch) p.read_write.push_back(pch_dir());  // precompiled headers (nvrtc_pch.h)
    if (auto jit_cache = driver_jit_cache_dir(driver_loaded)) p.read_write.push_back(*jit_cache);
    for (const auto& dir : cuda_include_dirs()) p.read.push_back(std::filesystem::weakly_canonical(dir));
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) && info.dli_fname) {
        std::error_code ec;
        p.read.push_back(std::filesystem::weakly_canonical(info.dli_fname, ec).parent_path());
    }
    return p;
}

// One policy per state of the driver, which may be loaded after the first compile (the worker compiles while
// CUDA starts), and of PCH use (set_pch_allowed); each made when first needed (with PCH use, that makes the PCH
// folder). The confined thread is one per distinct policy (run_confined).
const FileAccessPolicy& current_nvrtc_file_policy() {
    const bool pch = pch_allowed();
    if (cuda_driver_loaded()) {
        if (pch) {
            static const FileAccessPolicy with_driver = nvrtc_file_policy(true, true);
            return with_driver;
        }
        static const FileAccessPolicy with_driver_no_pch = nvrtc_file_policy(true, false);
        return with_driver_no_pch;
    }
    if (pch) {
        static const FileAccessPolicy without_driver = nvrtc_file_policy(false, true);
        return without_driver;
    }
    static const FileAccessPolicy without_driver_no_pch = nvrtc_file_policy(false, false);
    return without_driver_no_pch;
}

// NVRTC loads libnvrtc-builtins on its first compile; loading it before the thread is confined means the
// confined thread needs no access to the loader's cache or the library folders.
void preload_nvrtc_builtins() {
    static const bool loaded = [] {
        int major = 0, minor = 0;
        if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return false;
        const std::string name = "libnvrtc-builtins.so." + std::to_string(major) + "." + std::to_string(minor);
        return dlopen(name.c_str(), RTLD_NOW | RTLD_GLOBAL) != nullptr;
    }();
    (void)loaded;
}

// `syntax_only`: the front end's checks, nothing generated (check_device_code_with_nvrtc).
void compile_uncached(const CompileRequest& request, const LocalIncludes& includes, const std::string& arch,
                      CompileResult& result, CachedCompile& out, bool syntax_only = false, bool allow_pch = true) {
    const std::string path = display_path(request);
    std::vector<const char*> header_names, header_contents;
    for (const auto& h : nvrtc_std_headers()) {
        header_names.push_back(h.name);
        header_contents.push_back(h.contents);
    }
    for (const LocalHeader& h : includes.headers) {
        header_names.push_back(h.name.c_str());
        header_contents.push_back(h.rewritten.c_str());
    }
    nvrtcProgram program = nullptr;
    nvrtcResult r = nvrtcCreateProgram(&program, includes.rewritten_source.c_str(), path.c_str(), int(header_names.size()),
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
    for (const auto& k : request.also_kernels) {
        r = nvrtcAddNameExpression(program, k.c_str());
        if (r != NVRTC_SUCCESS) {
            result.error = nvrtc_failure(r, "nvrtcAddNameExpression");
            return;
        }
    }
    // The PCH option is not in result.options: the cubin does not depend on it, so the cache key does not.
    const std::vector<std::string> pch =
        syntax_only || !allow_pch ? std::vector<std::string>() : pch_options(request.source, result.options);
    std::vector<const char*> argv;
    for (const auto& o : result.options) argv.push_back(o.c_str());
    for (const auto& o : pch) argv.push_back(o.c_str());
    if (!syntax_only) ++g_nvrtc_invocations;
    preload_nvrtc_builtins();
    run_confined(current_nvrtc_file_policy(),
                 [&] { r = nvrtcCompileProgram(program, int(argv.size()), argv.data()); });
    pch_record(pch, nvrtcGetPCHCreateStatus(program) == NVRTC_SUCCESS);
    out.log = program_log(program);
    // Making a precompiled header needs temporary files where the confined thread may not write (Landlock allows
    // the PCH folder only): the header is marked failed above, and this kernel compiles without one.
    if (r != NVRTC_SUCCESS && !pch.empty() && out.log.find("cannot open temporary file") != std::string::npos) {
        compile_uncached(request, includes, arch, result, out, syntax_only, false);
        return;
    }
    result.log = out.log;
    result.diagnostics = parse_nvrtc_diagnostics(out.log, path, count_lines(request.source));
    locate_header_diagnostics(request, includes, result.diagnostics);
    explain_refused_reads(result.diagnostics);
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
    if (syntax_only) return;
    if (!request.kernel_name.empty()) {
        const char* lowered = nullptr;
        if (nvrtcGetLoweredName(program, request.kernel_name.c_str(), &lowered) == NVRTC_SUCCESS && lowered)
            out.lowered_name = lowered;
    }
    for (const auto& k : request.also_kernels) {
        const char* lowered = nullptr;
        if (nvrtcGetLoweredName(program, k.c_str(), &lowered) == NVRTC_SUCCESS && lowered) out.also_lowered[k] = lowered;
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

std::vector<std::string> nvrtc_options(const CompileRequest& /*request*/, const std::string& arch) {
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
    // The kernel's own headers come in memory (local_includes.h): NVRTC is not pointed at the user's folder
    // (which also lets kernels from different folders share a precompiled header, nvrtc_pch.h).
    return options;
}

bool nvrtc_minimal_applies(const std::string& source) {
    static const bool available = [] {
        int major = 0, minor = 0;
        return nvrtcVersion(&major, &minor) == NVRTC_SUCCESS && (major > 12 || (major == 12 && minor >= 4));
    }();
    if (!available) return false;
    if (const char* off = std::getenv("CUDA_PLAYGROUND_NO_MINIMAL"); off && *off && std::string(off) != "0") return false;
    // What -minimal leaves out: texture and surface functions, the device runtime (cuda* calls, launches from a
    // kernel) and the runtime API's types (cuda*_t). Any include may pull them in. Only the code NVRTC compiles
    // counts: not comments or strings (a lesson's header speaks of "CUDA"), and not the CPU reference, which is
    // compiled apart (its `#include <cmath>` is no device code's).
    const std::string device_source = without_reference_sections(source);
    if (device_source.find("#include") != std::string::npos) return false;
    const std::string code = blank_comments_and_strings(device_source);  // also blanks preprocessor lines
    for (const char* needs : {"cuda", "tex", "surf", "<<<"})
        if (code.find(needs) != std::string::npos) return false;
    return true;
}

CompileResult compile_with_nvrtc(const CompileRequest& request, const std::string& arch,
                                 std::vector<std::byte>* image_out, std::string* lowered_name_out,
                                 std::map<std::string, std::string>* also_lowered_out) {
    const auto start = std::chrono::steady_clock::now();
    CompileResult result;
    try {
        const LocalIncludes includes = resolve_local_includes(request.source, display_path(request), true, request.include_dirs);
        if (has_errors(includes.diagnostics)) {
            result.options = nvrtc_options(request, arch);
            result.diagnostics = includes.diagnostics;
            result.compile_ms =
                ms_since(start);
            return result;
        }
        const auto cache_dir = cubin_cache_dir();
        CachedCompile compiled;
        // One attempt with `minimal` or without: the cache, else NVRTC.
        const auto attempt = [&](bool minimal) {
            result = CompileResult();
            compiled = CachedCompile();
            result.options = nvrtc_options(request, arch);
            if (minimal) result.options.emplace_back("-minimal");
            result.options.insert(result.options.end(), request.extra_options.begin(), request.extra_options.end());
            const std::string key = cache_key(inputs_fingerprint(request, arch, result.options, includes));
            if (auto hit = load_cached_compile(cache_dir, key)) {
                compiled = std::move(*hit);
                result.cache_hit = true;
                result.log = compiled.log;
                result.diagnostics =
                    parse_nvrtc_diagnostics(compiled.log, display_path(request), count_lines(request.source));
                locate_header_diagnostics(request, includes, result.diagnostics);
            } else {
                compile_uncached(request, includes, arch, result, compiled);
                if (!compiled.image.empty() && !has_errors(result.diagnostics) && !result.error)
                    store_cached_compile(cache_dir, key, compiled);
            }
            result.ok = !compiled.image.empty() && !result.error && !has_errors(result.diagnostics) &&
                        check_is_entry(request, compiled, result);
        };
        const bool minimal = nvrtc_minimal_applies(includes.rewritten_source);
        attempt(minimal);
        if (minimal && !result.ok) attempt(false);
        if (result.ok) {
            result.usage = compiled.usage;
            for (const auto& [name, lowered] : compiled.also_lowered)
                result.also_usage[name] = parse_ptxas_usage(compiled.log, lowered);
            if (image_out) *image_out = std::move(compiled.image);
            if (lowered_name_out) *lowered_name_out = compiled.lowered_name;
            if (also_lowered_out) *also_lowered_out = compiled.also_lowered;
        }
    } catch (const std::exception& e) {
        result.ok = false;
        result.error =
            engine_error(ErrorKind::Internal, "internal", std::string("compiling failed unexpectedly: ") + e.what());
    }
    result.compile_ms =
        ms_since(start);
    return result;
}

void warm_up_nvrtc_pch(const std::string& arch) {
    CompileRequest request;
    request.source = "#include <cooperative_groups.h>\n__global__ void cp_pch_warm_up() {}\n";
    request.load = false;
    CompileResult result;
    result.options = nvrtc_options(request, arch);
    CachedCompile unused;
    LocalIncludes source;  // no local headers: NVRTC compiles the rewritten source, which is the source itself
    source.rewritten_source = request.source;
    compile_uncached(request, source, arch, result, unused, false);  // never cached: it is for the PCH
}

std::vector<Diagnostic> check_device_code_with_nvrtc(const CompileRequest& request, std::string* log) {
    std::vector<Diagnostic> errors;
    try {
        const LocalIncludes includes = resolve_local_includes(request.source, display_path(request), true, request.include_dirs);
        if (has_errors(includes.diagnostics)) return includes.diagnostics;
        CompileRequest check = request;
        check.kernel_name.clear();  // no name lookup: nothing is generated
        CompileResult result;
        result.options = nvrtc_options(check, "compute_90");
        result.options.insert(result.options.end(), request.extra_options.begin(), request.extra_options.end());
        result.options.emplace_back("-fdevice-syntax-only");
        CachedCompile unused;
        compile_uncached(check, includes, "compute_90", result, unused, true);
        if (log) *log = result.log;
        for (Diagnostic& d : result.diagnostics)
            if (d.severity == Severity::Error) errors.push_back(std::move(d));
        if (errors.empty() && result.error)
            errors.push_back({display_path(request), 0, 0, Severity::Error, result.error->message});
    } catch (const std::exception& e) {
        errors.push_back({display_path(request), 0, 0, Severity::Error, std::string("checking with NVRTC failed: ") + e.what()});
    }
    return errors;
}

uint64_t nvrtc_invocation_count() { return g_nvrtc_invocations.load(); }

std::optional<std::filesystem::path> driver_jit_cache_dir(bool driver_loaded) {
    if (!driver_loaded) return std::nullopt;
    if (const char* off = std::getenv("CUDA_CACHE_DISABLE"); off && std::string(off) == "1") return std::nullopt;
    std::filesystem::path dir;
    if (const char* path = std::getenv("CUDA_CACHE_PATH"); path && *path) {
        dir = path;
    } else if (const char* home = std::getenv("HOME"); home && *home) {
        dir = std::filesystem::path(home) / ".nv" / "ComputeCache";
    } else {
        return std::nullopt;
    }
    // Made here, unconfined: the confined thread may write beneath the folder, not make it.
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (!std::filesystem::is_directory(dir, ec)) return std::nullopt;
    return std::filesystem::weakly_canonical(dir, ec);
}

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
