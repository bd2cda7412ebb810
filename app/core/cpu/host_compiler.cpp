// Host compiler discovery, command line, message parsing and the .so compile cache for the CPU backend.
#include "core/cpu/host_compiler.h"

#include "core/cpu/shim/cp_shim_abi.h"
#include "core/cpu/source_prep.h"
#include "core/cpu/subprocess.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <unistd.h>

namespace cp {
namespace fs = std::filesystem;

namespace {

uint64_t fnv1a64(const std::string& data, uint64_t h) {
    for (const char c : data) {
        h ^= uint8_t(c);
        h *= 0x100000001b3ull;
    }
    return h;
}

std::string hex64(uint64_t v) {
    static const char* digits = "0123456789abcdef";
    std::string s(16, '0');
    for (int i = 15; i >= 0; --i, v >>= 4) s[size_t(i)] = digits[v & 15];
    return s;
}

std::optional<std::string> read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return std::nullopt;
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

bool write_text(const fs::path& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << text;
    return bool(out);
}

fs::path executable_dir() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe.parent_path();
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
    return s;
}

}  // namespace

Result<HostCompiler> find_host_compiler(const std::string& preferred) {
    std::vector<std::string> candidates;
    if (!preferred.empty()) {
        candidates.push_back(preferred);
    } else if (const char* cxx = std::getenv("CXX"); cxx && *cxx) {
        candidates.push_back(cxx);
    } else {
        candidates = {"g++", "clang++", "c++"};
    }
    for (const std::string& name : candidates) {
        const std::string path = find_executable(name);
        if (path.empty()) continue;
        const ProcessOutcome v = run_process({path, "--version"}, 20);
        if (!v.started || v.exit_code != 0) continue;
        HostCompiler c;
        c.path = path;
        c.version = v.output.substr(0, v.output.find('\n'));
        return c;
    }
    std::string tried;
    for (const std::string& n : candidates) tried += (tried.empty() ? "" : ", ") + n;
    return make_error("no host C++ compiler found for the CPU backend (tried " + tried + ")",
                      "install g++ (apt install g++) or set CXX to a C++17 compiler");
}

Result<ShimLocation> find_shim() {
    std::vector<fs::path> candidates;
    if (const char* env = std::getenv("CUDA_PLAYGROUND_SHIM_DIR"); env && *env) {
        if (!fs::exists(fs::path(env) / "cuda_shim.h"))
            return make_error(std::string("CUDA_PLAYGROUND_SHIM_DIR=") + env + " does not contain cuda_shim.h",
                              "point it at app/core/cpu/shim in the source tree, or unset it");
        candidates.push_back(env);
    }
#ifdef CP_SOURCE_SHIM_DIR
    candidates.push_back(CP_SOURCE_SHIM_DIR);
#endif
    if (const fs::path exe = executable_dir(); !exe.empty()) {
        candidates.push_back(exe / "shim");
        candidates.push_back(exe / ".." / "share" / "cuda-playground" / "shim");
    }
    for (const fs::path& dir : candidates) {
        if (!fs::exists(dir / "cuda_shim.h")) continue;
        ShimLocation shim;
        shim.dir = fs::weakly_canonical(dir);
        std::vector<fs::path> files;
        for (const auto& entry : fs::recursive_directory_iterator(shim.dir))
            if (entry.is_regular_file()) files.push_back(entry.path());
        std::sort(files.begin(), files.end());
        std::string all;
        for (const fs::path& f : files) all += fs::relative(f, shim.dir).string() + "\n" + read_text(f).value_or("") + "\n";
        shim.fingerprint = cpu_cache_key(all);
        return shim;
    }
    return make_error("the CPU backend's shim headers (cuda_shim.h) were not found",
                      "set CUDA_PLAYGROUND_SHIM_DIR to the app/core/cpu/shim folder of the source tree");
}

fs::path cpu_cache_dir() {
    if (const char* off = std::getenv("CUDA_PLAYGROUND_NO_CACHE"); off && *off && std::string(off) != "0") return {};
    if (const char* dir = std::getenv("CUDA_PLAYGROUND_CACHE_DIR"); dir && *dir) return fs::path(dir) / "cpu";
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "cuda-playground" / "cpu";
    if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "cuda-playground" / "cpu";
    return {};
}

std::string cpu_cache_key(const std::string& inputs) {
    return hex64(fnv1a64(inputs, 0xcbf29ce484222325ull)) + hex64(fnv1a64(inputs, 0x84222325cbf29ce4ull));
}

HostCompileOptions host_compile_options(const ShimLocation& shim, const std::vector<std::string>& extra) {
    HostCompileOptions out;
    std::string standard = "-std=c++17";  // NVRTC's default dialect
    std::vector<std::string> passed;
    for (size_t i = 0; i < extra.size(); ++i) {
        const std::string& o = extra[i];
        auto with_value = [&](const std::string& flag) {  // "-D X" as two arguments
            if (o == flag && i + 1 < extra.size()) {
                passed.push_back(flag + extra[++i]);
                return true;
            }
            return false;
        };
        if (with_value("-D") || with_value("-U") || with_value("-I")) continue;
        if ((o.rfind("-D", 0) == 0 || o.rfind("-U", 0) == 0 || o.rfind("-I", 0) == 0) && o.size() > 2) {
            passed.push_back(o);
        } else if (o.rfind("--define-macro=", 0) == 0) {
            passed.push_back("-D" + o.substr(15));
        } else if (o.rfind("--undefine-macro=", 0) == 0) {
            passed.push_back("-U" + o.substr(17));
        } else if (o.rfind("--include-path=", 0) == 0) {
            passed.push_back("-I" + o.substr(15));
        } else if (o.rfind("-std=c++", 0) == 0 || o.rfind("--std=c++", 0) == 0) {
            standard = "-std=" + o.substr(o.find('=') + 1);
        } else {
            out.ignored.push_back(o);  // GPU-only: -arch, -lineinfo, --use_fast_math, -G, --fmad...
        }
    }
    out.flags = {standard,
                 "-O2",
                 "-g1",  // line tables: a faulting instruction is mapped back to the user's line
                 "-fPIC",
                 "-shared",
                 "-fvisibility=hidden",
                 "-fno-exceptions",
                 "-fno-rtti",
                 "-ffp-contract=off",  // no fused multiply-add: results match a plain CPU reference
                 "-fno-math-errno",
                 "-fno-strict-aliasing",  // kernels often reinterpret buffers (uchar4 <-> int)
                 // Some distributions turn these on by default; their checks abort() the whole process,
                 // where the backend's own guards report the thread and the line instead.
                 "-U_FORTIFY_SOURCE",
                 "-fno-stack-protector",
                 "-fmessage-length=0",
                 "-fdiagnostics-color=never",
                 "-I" + (shim.dir / "include").string(),
                 "-include",
                 (shim.dir / "cuda_shim.h").string()};
    out.flags.insert(out.flags.end(), passed.begin(), passed.end());
    return out;
}

std::vector<Diagnostic> parse_compiler_messages(const std::string& raw_log, const std::string& user_path,
                                                const std::string& kernel_name, int kernel_line) {
    // LC_ALL may make gcc quote with ‘’; NVRTC's messages use plain quotes.
    const std::string log = replace_all(replace_all(raw_log, "\xE2\x80\x98", "'"), "\xE2\x80\x99", "'");
    static const std::regex located(R"(^(.+?):(\d+):(?:(\d+):)? (fatal error|error|warning|note): (.*)$)");
    static const std::regex unlocated(R"(^(?:[^:\s]*(?:cc1plus|g\+\+|clang\S*|c\+\+|ld)): (fatal error|error|warning): (.*)$)");
    std::vector<Diagnostic> out;
    bool last_in_shim = false;  // the previous error was inside the shim: move it to the user's line
    std::istringstream lines(log);
    std::string line;
    while (std::getline(lines, line)) {
        std::smatch m;
        if (std::regex_match(line, m, located)) {
            Diagnostic d;
            d.file = m[1].str();
            d.line = std::stoi(m[2].str());
            d.column = m[3].matched ? std::stoi(m[3].str()) : 0;
            const std::string sev = m[4].str();
            d.severity = sev == "warning" ? Severity::Warning : sev == "note" ? Severity::Note : Severity::Error;
            d.message = m[5].str();
            if (d.file == kEntryPointsFile) {
                d.file = user_path;
                d.line = kernel_line;
                d.column = 0;
                d.message = "the CPU backend cannot call kernel `" + kernel_name + "` by name: " + d.message;
            }
            const bool in_user_file = d.file == user_path;
            if (d.severity == Severity::Note && last_in_shim && in_user_file && !out.empty()) {
                out.back().file = d.file;
                out.back().line = d.line;
                out.back().column = d.column;
                last_in_shim = false;
                continue;
            }
            if (d.severity != Severity::Note) last_in_shim = !in_user_file;
            out.push_back(std::move(d));
        } else if (std::regex_match(line, m, unlocated)) {
            out.push_back({user_path, 0, 0, m[1].str() == "warning" ? Severity::Warning : Severity::Error, m[2].str()});
            last_in_shim = false;
        }
    }
    return out;
}

CpuCompileOutput compile_for_cpu(const CompileRequest& request, const HostCompiler& compiler, const ShimLocation& shim,
                                 const fs::path& cache_dir) {
    CpuCompileOutput out;
    const std::string user_path = request.path.empty() ? std::string("kernel.cu") : request.path;
    const PreparedSource prepared = prepare_kernel_source(request.source, user_path, request.kernel_name);
    out.diagnostics = prepared.diagnostics;
    out.kernel_name = prepared.kernel_name;
    const HostCompileOptions options = host_compile_options(shim, request.extra_options);
    out.options = options.flags;
    if (prepared.text.empty()) return out;  // refused before compiling: diagnostics say why

    int kernel_line = 0;
    for (const KernelDecl& k : prepared.kernels)
        if (k.name == prepared.kernel_name.substr(0, prepared.kernel_name.find('<'))) kernel_line = k.line;
    std::string ignored_note;
    if (!options.ignored.empty()) {
        ignored_note = "cpu backend: ignored GPU-only options:";
        for (const std::string& o : options.ignored) ignored_note += " " + o;
        ignored_note += "\n";
    }

    std::string key_inputs = "abi=" + std::to_string(CP_SHIM_ABI_VERSION) + "\nshim=" + shim.fingerprint +
                             "\ncompiler=" + compiler.path + " " + compiler.version + "\nflags=";
    for (const std::string& f : options.flags) key_inputs += f + " ";
    key_inputs += "\nkernel=" + prepared.kernel_name + "\n" + prepared.text;
    const std::string key = cpu_cache_key(key_inputs);

    std::error_code ec;
    if (!cache_dir.empty()) {
        const fs::path cached = cache_dir / (key + ".so");
        if (fs::exists(cached, ec)) {
            if (const auto log = read_text(cache_dir / (key + ".log"))) {
                out.cache_hit = true;
                out.ok = true;
                out.log = ignored_note + *log;
                out.library = cached;
                std::vector<Diagnostic> messages = parse_compiler_messages(*log, user_path, prepared.kernel_name, kernel_line);
                out.diagnostics.insert(out.diagnostics.end(), messages.begin(), messages.end());
                return out;
            }
        }
    }

    // Build in a fresh folder (inside the cache when possible, so the result can be renamed into place).
    fs::path work_parent = cache_dir;
    if (work_parent.empty() || (fs::create_directories(work_parent, ec), !fs::is_directory(work_parent, ec)) ||
        ::access(work_parent.c_str(), W_OK) != 0) {
        const char* tmp = std::getenv("TMPDIR");
        work_parent = tmp && *tmp ? tmp : "/tmp";
    }
    std::string pattern = (work_parent / "cp-build-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) {
        out.diagnostics.push_back({user_path, 0, 0, Severity::Error,
                                   "cannot create a build folder in " + work_parent.string() + " for the CPU backend"});
        return out;
    }
    const fs::path work = pattern;
    const fs::path source_file = work / "kernel.cpp";
    const fs::path library_file = work / "kernel.so";
    if (!write_text(source_file, prepared.text)) {
        out.diagnostics.push_back({user_path, 0, 0, Severity::Error, "cannot write " + source_file.string()});
        fs::remove_all(work, ec);
        return out;
    }
    std::vector<std::string> argv = {compiler.path};
    argv.insert(argv.end(), options.flags.begin(), options.flags.end());
    argv.insert(argv.end(), {"-x", "c++", source_file.string(), "-o", library_file.string()});
    const ProcessOutcome run = run_process(argv, 120);
    out.log = ignored_note + run.output;
    std::vector<Diagnostic> messages = parse_compiler_messages(run.output, user_path, prepared.kernel_name, kernel_line);
    out.diagnostics.insert(out.diagnostics.end(), messages.begin(), messages.end());
    if (!run.started || run.timed_out || run.exit_code != 0) {
        if (!run.started || run.timed_out || !has_errors(out.diagnostics)) {
            const std::string why = !run.started ? run.error
                                    : run.timed_out ? "the host compiler did not finish within 120 s"
                                                    : "the host compiler failed (exit code " + std::to_string(run.exit_code) + ")";
            out.diagnostics.push_back({user_path, 0, 0, Severity::Error, why});
        }
        fs::remove_all(work, ec);
        return out;
    }
    out.ok = true;
    if (work_parent == cache_dir) {
        // The log goes in first: a library in the cache always has its log next to it.
        const fs::path cached = cache_dir / (key + ".so");
        if (write_text(cache_dir / (key + ".log"), run.output) && (fs::rename(library_file, cached, ec), !ec)) {
            out.library = cached;
            fs::remove_all(work, ec);
            return out;
        }
    }
    out.library = library_file;
    out.temporary_dir = work;
    return out;
}

}  // namespace cp
