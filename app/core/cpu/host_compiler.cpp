// Host compiler discovery, command line, message parsing, the .so compile cache, and the whole compile for
// the CPU backend: local headers, NVRTC's check of device code, the host compiler on a confined thread.
#include "core/cpu/host_compiler.h"

#include "core/cpu/shim/cp_shim_abi.h"
#include "core/cpu/debug_instrument.h"
#include "core/cpu/source_prep.h"
#include "core/worker/subprocess.h"
#include "core/toolkit/nvrtc_compiler.h"
#include "core/toolkit/nvrtc_pch.h"
#include "core/kernel_file/local_includes.h"
#include "core/worker/sandbox.h"

#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <future>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include "cp_build_paths.h"

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
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
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
    return make_error(ErrorKind::Unsupported, "no host C++ compiler found for the CPU backend (tried " + tried + ")",
                      "install g++ (apt install g++) or set CXX to a C++17 compiler");
}

Result<ShimLocation> find_shim() {
    std::vector<fs::path> candidates;
    if (const char* env = std::getenv("CUDA_PLAYGROUND_SHIM_DIR"); env && *env) {
        if (!fs::exists(fs::path(env) / "cuda_shim.h"))
            return make_error(ErrorKind::UserInput,
                              std::string("CUDA_PLAYGROUND_SHIM_DIR=") + env + " does not contain cuda_shim.h",
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
        for (const fs::path& f : files)
            all += fs::relative(f, shim.dir).string() + "\n" + read_text(f).value_or("") + "\n";
        shim.fingerprint = cpu_cache_key(all);
        return shim;
    }
    return make_error(ErrorKind::Unsupported, "the CPU backend's shim headers (cuda_shim.h) were not found",
                      "set CUDA_PLAYGROUND_SHIM_DIR to the app/core/cpu/shim folder of the source tree");
}

fs::path cpu_cache_dir_for(const std::string& option) {
    if (option.empty()) return cpu_cache_dir();
    return option == "-" ? fs::path() : fs::path(option);
}

fs::path cpu_cache_dir() {
    if (const char* off = std::getenv("CUDA_PLAYGROUND_NO_CACHE"); off && *off && std::string(off) != "0") return {};
    if (const char* dir = std::getenv("CUDA_PLAYGROUND_CACHE_DIR"); dir && *dir) return fs::path(dir) / "cpu";
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "cuda-playground" / "cpu";
    if (const char* home = std::getenv("HOME"); home && *home)
        return fs::path(home) / ".cache" / "cuda-playground" / "cpu";
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
    out.flags = {standard, "-O2",
                 "-g1",  // line tables: a faulting instruction is mapped back to the user's line
                 "-fPIC", "-shared", "-fvisibility=hidden", "-fno-exceptions", "-fno-rtti",
                 "-ffp-contract=off",  // no fused multiply-add: results match a plain CPU reference
                 "-fno-math-errno",
                 "-fno-strict-aliasing",  // kernels often reinterpret buffers (uchar4 <-> int)
                 // Some distributions turn these on by default; their checks abort() the whole process,
                 // where the backend's own guards report the thread and the line instead.
                 "-U_FORTIFY_SOURCE", "-fno-stack-protector", "-fmessage-length=0", "-fdiagnostics-color=never",
                 "-I" + (shim.dir / "include").string(), "-include", (shim.dir / "cuda_shim.h").string()};
    out.flags.insert(out.flags.end(), passed.begin(), passed.end());
    out.from_user = passed;
    return out;
}

std::vector<std::string> access_check_flags(const HostCompiler& compiler) {
#if !defined(__x86_64__)
    // The shadow's fixed place assumes x86-64's 47-bit user addresses (AArch64 maps stacks near 2^48).
    (void)compiler;
    return {};
#endif
    // GCC only: clang spells the parameters differently (-mllvm) and its instrumentation needs other hooks.
    if (compiler.version.find("clang") != std::string::npos) return {};
    // The checks about double a kernel's time on the CPU; for speed over checking, they can be turned off
    // (the guard pages and the patterns checked after the launch remain).
    if (const char* off = std::getenv("CUDA_PLAYGROUND_CPU_ACCESS_CHECKS"); off && std::string(off) == "0") return {};
    char offset[64];
    std::snprintf(offset, sizeof offset, "-fasan-shadow-offset=0x%llx", cp_abi::kBoundsShadowOffset);
    return {"-fsanitize=kernel-address", "-fsanitize-recover=kernel-address", offset,
            // the shadow test inline (a call only near a buffer's edge); nothing on the stack or for globals
            // (they would need the sanitizer's runtime)
            "--param", "asan-instrumentation-with-call-threshold=1000000000", "--param", "asan-stack=0", "--param",
            "asan-globals=0", "--param", "asan-use-after-return=0",
            // identical tails of branches (each access with its test) stay apart, so each access
            // keeps its own line for the report
            "-fno-crossjumping"};
}

std::vector<Diagnostic> parse_compiler_messages(const std::string& raw_log, const std::string& user_path,
                                                const std::string& kernel_name, int kernel_line) {
    // LC_ALL may make gcc quote with ‘’; NVRTC's messages use plain quotes.
    const std::string log = replace_all(replace_all(raw_log, "\xE2\x80\x98", "'"), "\xE2\x80\x99", "'");
    static const std::regex located(R"(^(.+?):(\d+):(?:(\d+):)? (fatal error|error|warning|note): (.*)$)");
    static const std::regex unlocated(
        R"(^(?:[^:\s]*(?:cc1plus|g\+\+|clang\S*|c\+\+|ld)): (fatal error|error|warning): (.*)$)");
    // The assembler's messages point into a temporary .s file: only the words help (e.g. an .incbin of a
    // file the confined compiler may not read is "file not found").
    static const std::regex assembler(R"(^\S+\.s:\d+: (Error|Warning): (.*)$)");
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
        } else if (std::regex_match(line, m, assembler)) {
            std::string message = "the assembler: " + m[2].str();
            if (message.find("file not found") != std::string::npos)
                message += " (it may read only the system's compiler files, not other files on this computer)";
            out.push_back({user_path, 0, 0, m[1].str() == "Warning" ? Severity::Warning : Severity::Error, message});
            last_in_shim = false;
        } else if (std::regex_match(line, m, unlocated)) {
            out.push_back({user_path, 0, 0, m[1].str() == "warning" ? Severity::Warning : Severity::Error, m[2].str()});
            last_in_shim = false;
        }
    }
    return out;
}

namespace {

// Where the host compiler may write: one folder for every build, so one confined thread serves them all.
fs::path build_root(const fs::path& cache_dir) {
    std::error_code ec;
    if (!cache_dir.empty()) {
        const fs::path root = cache_dir / "build";
        fs::create_directories(root, ec);
        if (fs::is_directory(root, ec) && ::access(root.c_str(), W_OK) == 0) return root;
    }
    const char* tmp = std::getenv("TMPDIR");
    const fs::path root =
        fs::path(tmp && *tmp ? tmp : "/tmp") / ("cuda-playground-build-" + std::to_string(::getuid()));
    fs::create_directories(root, ec);
    return root;
}

// Messages in the private copy of a local header name it by its place in the kernel's folder.
void locate_in_folder(std::vector<Diagnostic>& diags, const fs::path& work, const fs::path& folder) {
    const std::string prefix = work.string() + "/";
    for (Diagnostic& d : diags) {
        if (d.file.rfind(prefix, 0) == 0) d.file = (folder / d.file.substr(prefix.size())).string();
        if (d.message.find("Permission denied") != std::string::npos)
            d.message += " (the compiler may read only the system's compiler files and the kernel file's own folder)";
    }
}

}  // namespace

FileAccessPolicy host_compiler_policy(const HostCompiler& compiler, const ShimLocation& shim, const fs::path& root) {
    FileAccessPolicy p;
    p.label = "the host compiler";
    for (const char* dir : {"/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", "/etc/ld.so.cache",
                            "/etc/alternatives", "/dev/null", "/dev/urandom"})
        p.read.emplace_back(dir);
    std::error_code ec;
    const fs::path real = fs::weakly_canonical(compiler.path, ec);
    if (!real.empty() && real.parent_path().has_parent_path()) p.read.push_back(real.parent_path().parent_path());
    p.read.push_back(shim.dir);
    p.read_write = {root, "/dev/null"};
    return p;
}

namespace {

// In a bounds-checked library's flags (not the recording variant's, whose every access calls the hooks): the shim
// leaves its bounds hooks to an object compiled once (shim_bounds_object) that the library links.
const std::string kBoundsHooksApart = "-DCP_SHIM_BOUNDS_HOOKS_APART";

// One shared library to build: what the host compiler compiles and everything that decides the result.
struct LibraryPlan {
    std::string text;  // the translation unit
    const LocalIncludes* includes = nullptr;
    std::string user_path;
    std::vector<std::string> flags;
    std::vector<std::string> user_flags;  // those of `flags` that came from the file's options
    std::string key_inputs;
    std::string kernel_name;  // for messages about the generated entry points
    int kernel_line = 0;
    std::string ignored_note;
    std::function<std::vector<Diagnostic>()> device_check;  // runs while the compiler runs; empty: none
};

std::string key_prefix(const HostCompiler& compiler, const ShimLocation& shim, const std::vector<std::string>& flags);

// GCC's word that it passed over a .gch (-Winvalid-pch) is not the user's business: those lines leave the log,
// and `read_pch` says whether there was none.
std::string without_pch_warnings(const std::string& log, bool& read_pch) {
    std::string out;
    size_t pos = 0;
    while (pos < log.size()) {
        const size_t eol = std::min(log.find('\n', pos), log.size());
        const std::string line = log.substr(pos, eol - pos);
        if (line.find("[-Winvalid-pch]") != std::string::npos)
            read_pch = false;
        else
            out += log.substr(pos, eol + 1 - pos);
        pos = eol + 1;
    }
    return out;
}

// The plan's flags for what is made from the shim alone (its PCH, its bounds hooks): without the force-included
// header, -shared and the user's own options (-D, -U, -I).
std::vector<std::string> shim_flags(const LibraryPlan& plan) {
    std::vector<std::string> flags;
    for (size_t i = 0; i < plan.flags.size(); ++i) {
        const std::string& f = plan.flags[i];
        if (f == "-include" && i + 1 < plan.flags.size()) {
            ++i;
            continue;
        }
        if (f == "-shared" ||
            std::find(plan.user_flags.begin(), plan.user_flags.end(), f) != plan.user_flags.end())
            continue;
        flags.push_back(f);
    }
    return flags;
}

// root/PREFIX-KEY/NAME, made once per key by `make` (which writes NAME into the fresh folder it is given; the folder
// is then renamed into place) and kept next to the libraries. Another compile of this process waits for it, then
// uses it; another process may put its own there first, which is as good. Empty: making it failed (and is not tried
// again by this process).
fs::path made_once(const fs::path& root, const std::string& prefix, const std::string& key, const std::string& name,
                   const std::function<bool(const fs::path& work)>& make) {
    const fs::path dir = root / (prefix + key);
    std::error_code ec;
    if (fs::exists(dir / name, ec)) return dir / name;
    static std::mutex making;
    static std::set<std::string> failed;
    std::lock_guard<std::mutex> lock(making);
    if (fs::exists(dir / name, ec)) return dir / name;
    if (failed.count(prefix + key)) return {};
    std::string pattern = (root / (prefix + "new-XXXXXX")).string();
    if (!::mkdtemp(pattern.data())) return {};
    const fs::path work = pattern;
    if (make(work) && fs::exists(work / name, ec)) {
        fs::rename(work, dir, ec);
        if (fs::exists(dir / name, ec)) {
            fs::remove_all(work, ec);
            return dir / name;
        }
    }
    failed.insert(prefix + key);
    fs::remove_all(work, ec);
    return {};
}

// The host compiler on ARGV, confined to the build root, with its temporary files in WORK.
ProcessOutcome run_host_compiler(const std::vector<std::string>& argv, const fs::path& work,
                                 const HostCompiler& compiler, const ShimLocation& shim, const fs::path& root) {
    ProcessOutcome run;
    run_confined(host_compiler_policy(compiler, shim, root),
                 [&] { run = run_process(argv, 120, {"TMPDIR=" + work.string()}); });
    return run;
}

bool succeeded(const ProcessOutcome& run) { return run.started && !run.timed_out && run.exit_code == 0; }

// The shim precompiled (GCC's PCH): its ~30 system and shim headers were a third of every kernel's compile.
// A PCH serves compiles with the same flags, so it is made once per set of flags (the user's own -D, -U and -I
// left out: GCC checks that a macro defined on the command line does not change the header, and reads the
// header as text if it does) in `root`, by the confined compiler, and kept there next to the libraries. The
// compile then includes a one-line header that includes the shim, with its .gch beside it; GCC reads the .gch
// when it is valid for the compile and the text otherwise, so a PCH never changes what is built. Empty: no PCH
// (clang, CUDA_PLAYGROUND_NO_PCH, or making it failed: the compile reads the shim as text).
fs::path shim_pch_header(const LibraryPlan& plan, const HostCompiler& compiler, const ShimLocation& shim,
                         const fs::path& root) {
    if (compiler.version.find("clang") != std::string::npos) return {};
    if (pch_turned_off_by_environment()) return {};
    const std::vector<std::string> flags = shim_flags(plan);
    const std::string key = cpu_cache_key("shim pch\n" + key_prefix(compiler, shim, flags));
    const fs::path gch = made_once(root, "shim-pch-", key, "cuda_shim.h.gch", [&](const fs::path& work) {
        if (!write_text(work / "cuda_shim.h", "#include \"" + (shim.dir / "cuda_shim.h").string() + "\"\n"))
            return false;
        std::vector<std::string> argv = {compiler.path};
        argv.insert(argv.end(), flags.begin(), flags.end());
        argv.insert(argv.end(), {"-x", "c++-header", (work / "cuda_shim.h").string(), "-o",
                                 (work / "cuda_shim.h.gch").string()});
        return succeeded(run_host_compiler(argv, work, compiler, shim, root));
    });
    return gch.empty() ? fs::path() : gch.parent_path() / "cuda_shim.h";
}

// The shim's bounds hooks (shim/cuda_shim_bounds.h) compiled once per set of flags, for the bounds-checked
// libraries to link (kBoundsHooksApart): their 30 functions were 0.1 s of every such kernel's 0.25 s compile. Each
// library still gets its own copy (a static object), so its own bounds map. Empty: making it failed (the
// compile then defines them itself).
fs::path shim_bounds_object(const LibraryPlan& plan, const HostCompiler& compiler, const ShimLocation& shim,
                            const fs::path& root) {
    const std::vector<std::string> flags = shim_flags(plan);
    const std::string key = cpu_cache_key("shim bounds hooks\n" + key_prefix(compiler, shim, flags));
    return made_once(root, "shim-bounds-", key, "cuda_shim_bounds.o", [&](const fs::path& work) {
        const fs::path source = work / "cuda_shim_bounds.cpp";
        if (!write_text(source, "#include \"" + (shim.dir / "cuda_shim_bounds.h").string() + "\"\n")) return false;
        std::vector<std::string> argv = {compiler.path};
        argv.insert(argv.end(), flags.begin(), flags.end());
        argv.insert(argv.end(), {"-c", "-x", "c++", source.string(), "-o", (work / "cuda_shim_bounds.o").string()});
        return succeeded(run_host_compiler(argv, work, compiler, shim, root));
    });
}

// The cache, else the confined host compiler in a fresh folder below the build root (inside the cache when
// possible, so the result can be renamed into place), with the kernel's local headers copied in their layout.
CpuCompileOutput build_library(const LibraryPlan& plan, const HostCompiler& compiler, const ShimLocation& shim,
                               const fs::path& cache_dir, CpuCompileOutput out) {
    const std::string key = cpu_cache_key(plan.key_inputs);
    std::error_code ec;
    if (!cache_dir.empty()) {
        const fs::path cached = cache_dir / (key + ".so");
        if (fs::exists(cached, ec)) {
            if (const auto log = read_text(cache_dir / (key + ".log"))) {
                out.cache_hit = true;
                out.ok = true;
                out.log = plan.ignored_note + *log;
                out.library = cached;
                std::vector<Diagnostic> messages =
                    parse_compiler_messages(*log, plan.user_path, plan.kernel_name, plan.kernel_line);
                out.diagnostics.insert(out.diagnostics.end(), messages.begin(), messages.end());
                return out;
            }
        }
    }
    std::future<std::vector<Diagnostic>> device_errors;
    if (plan.device_check) device_errors = std::async(std::launch::async, plan.device_check);

    const fs::path root = build_root(cache_dir);
    std::string pattern = (root / "cp-build-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) {
        out.diagnostics.push_back({plan.user_path, 0, 0, Severity::Error,
                                   "cannot create a build folder in " + root.string() + " for the CPU backend"});
        return out;
    }
    const fs::path work = pattern;
    const fs::path source_file = work / "kernel.cpp";
    const fs::path library_file = work / "kernel.so";
    bool written = write_text(source_file, plan.text);
    for (const LocalHeader& h : plan.includes->headers) {
        fs::create_directories((work / h.name).parent_path(), ec);
        written = written && write_text(work / h.name, h.contents);
    }
    if (!written) {
        out.diagnostics.push_back(
            {plan.user_path, 0, 0, Severity::Error, "cannot write the sources to " + work.string()});
        fs::remove_all(work, ec);
        return out;
    }
    std::vector<std::string> argv = {compiler.path};
    argv.insert(argv.end(), plan.flags.begin(), plan.flags.end());
    fs::path bounds_object;
    if (const auto apart = std::find(argv.begin(), argv.end(), kBoundsHooksApart); apart != argv.end()) {
        bounds_object = shim_bounds_object(plan, compiler, shim, root);
        if (bounds_object.empty()) argv.erase(apart);  // the shim defines the hooks (and its PCH is passed over)
    }
    if (const fs::path pch = shim_pch_header(plan, compiler, shim, root); !pch.empty()) {
        for (size_t i = 1; i + 1 < argv.size(); ++i)
            if (argv[i] == "-include") argv[i + 1] = pch.string();
        argv.push_back("-Winvalid-pch");  // a .gch GCC passes over says why, among the warnings
        out.shim_precompiled = true;
    }
    argv.insert(argv.end(), {"-x", "c++", source_file.string()});
    if (!bounds_object.empty()) argv.insert(argv.end(), {"-x", "none", bounds_object.string()});
    argv.insert(argv.end(), {"-o", library_file.string()});
    ProcessOutcome run = run_host_compiler(argv, work, compiler, shim, root);
    if (out.shim_precompiled) run.output = without_pch_warnings(run.output, out.shim_precompiled);
    out.log = plan.ignored_note + run.output;
    out.host_compiler_ran = true;
    if (plan.device_check) {
        const std::vector<Diagnostic> errors = device_errors.get();
        if (!errors.empty()) {
            out.nvrtc_refused = true;
            out.diagnostics.insert(out.diagnostics.end(), errors.begin(), errors.end());
            // Said only when the host compiler took the same code: then NVRTC refused what is C++ but not CUDA
            // device code (a host function called from a kernel). A plain mistake (a missing `;`) both refuse,
            // and NVRTC's words, which a GPU build gives too, say all there is.
            const bool host_compiler_took_it = succeeded(run);
            if (host_compiler_took_it) {
                const Diagnostic& first = errors.front();
                out.diagnostics.push_back({first.file.empty() ? plan.user_path : first.file, first.line, first.column,
                                           Severity::Note,
                                           "the CPU backend first checks device code with NVRTC, as a GPU build "
                                           "would: kernels cannot call host functions"});
            }
            fs::remove_all(work, ec);
            return out;
        }
    }
    std::vector<Diagnostic> messages =
        parse_compiler_messages(run.output, plan.user_path, plan.kernel_name, plan.kernel_line);
    locate_in_folder(messages, work, fs::path(plan.user_path).parent_path());
    out.diagnostics.insert(out.diagnostics.end(), messages.begin(), messages.end());
    if (!succeeded(run)) {
        if (!run.started || run.timed_out || !has_errors(out.diagnostics)) {
            const std::string why = !run.started ? run.error
                                    : run.timed_out
                                        ? "the host compiler did not finish within 120 s"
                                        : "the host compiler failed (exit code " + std::to_string(run.exit_code) + ")";
            out.diagnostics.push_back({plan.user_path, 0, 0, Severity::Error, why});
        }
        fs::remove_all(work, ec);
        return out;
    }
    out.ok = true;
    if (!cache_dir.empty() && root.parent_path() == cache_dir) {
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

// The plan's parts every library shares: the translation unit, its headers, the user's file and the flags.
LibraryPlan plan_for(std::string text, const LocalIncludes& includes, const std::string& user_path,
                     const HostCompileOptions& options) {
    LibraryPlan plan;
    plan.text = std::move(text);
    plan.includes = &includes;
    plan.user_path = user_path;
    plan.flags = options.flags;
    plan.user_flags = options.from_user;
    return plan;
}

// buffer_start_alignment of the source and its own headers (a pasted sample's float4 helpers count too).
size_t alignment_with_headers(const std::string& source, const LocalIncludes& includes) {
    std::string code = source;
    for (const LocalHeader& h : includes.headers) code += "\n" + h.rewritten;
    return buffer_start_alignment(code);
}

// "cpu backend: ignored GPU-only options: -arch=sm_90" for the log; empty when none was.
std::string ignored_options_note(const HostCompileOptions& options) {
    if (options.ignored.empty()) return {};
    std::string note = "cpu backend: ignored GPU-only options:";
    for (const std::string& o : options.ignored) note += " " + o;
    return note + "\n";
}

std::string key_prefix(const HostCompiler& compiler, const ShimLocation& shim, const std::vector<std::string>& flags) {
    std::string key = "abi=" + std::to_string(CP_SHIM_ABI_VERSION) + "\nshim=" + shim.fingerprint +
                      "\ncompiler=" + compiler.path + " " + compiler.version + "\nflags=";
    for (const std::string& f : flags) key += f + " ";
    return key;
}

}  // namespace

CpuCompileOutput compile_for_cpu(const CompileRequest& request, const HostCompiler& compiler, const ShimLocation& shim,
                                 const fs::path& cache_dir) {
    CpuCompileOutput out;
    const std::string user_path = request.path.empty() ? std::string("kernel.cu") : request.path;
    const LocalIncludes includes = resolve_local_includes(request.source, user_path, true);
    if (has_errors(includes.diagnostics)) {
        out.diagnostics = includes.diagnostics;
        return out;
    }
    out.buffer_align = alignment_with_headers(request.source, includes);
    // Kernels that read float4s get buffers starting 16-byte aligned, as on a GPU: their shared arrays too.
    PreparedSource prepared =
        prepare_kernel_source(request.source, user_path, request.kernel_name, out.buffer_align);
    out.diagnostics = prepared.diagnostics;
    out.kernel_name = prepared.kernel_name;
    HostCompileOptions options = host_compile_options(shim, request.extra_options);
    std::vector<std::string> checks = access_check_flags(compiler);
    if (request.instrument_memory && !checks.empty()) {
        // The recording variant (issue 23): every load and store calls the shim's hook, which records it
        // (CP_SHIM_RECORD_ACCESSES) before the same bounds test. The flags are part of the cache key.
        for (std::string& f : checks)
            if (f.rfind("asan-instrumentation-with-call-threshold=", 0) == 0)
                f = "asan-instrumentation-with-call-threshold=0";
        checks.push_back("-DCP_SHIM_RECORD_ACCESSES");
    } else if (!checks.empty()) {
        checks.push_back(kBoundsHooksApart);
    }
    options.flags.insert(options.flags.end(), checks.begin(), checks.end());
    out.options = options.flags;
    if (prepared.text.empty()) {  // refused before compiling: diagnostics say why
        // A feature with no plain-CUDA way: --backend cuda is named only when CUDA's compiler takes the file.
        const std::string bare = " is not supported by the CPU backend";
        std::vector<Diagnostic*> bare_refusals;
        for (Diagnostic& d : out.diagnostics)
            if (d.message.size() > bare.size() &&
                d.message.compare(d.message.size() - bare.size(), bare.size(), bare) == 0)
                bare_refusals.push_back(&d);
        if (!bare_refusals.empty()) {
            const bool cuda_compiles = check_device_code_with_nvrtc(request).empty();
            for (Diagnostic* d : bare_refusals)
                d->message += cuda_compiles ? "; CUDA's compiler accepts the file: on a machine with an NVIDIA GPU, "
                                              "--backend cuda runs it"
                                            : "; CUDA's compiler refuses the file too (`cuda-playground compile` shows "
                                              "why)";
        }
        return out;
    }

    if (request.instrument_debug) {
        // The stepping variant (issue 39): a probe before each of the kernel's statements, placed from clang's
        // syntax tree of exactly this text; the probes' text is part of the cache key.
        auto instrumented = instrument_kernel_for_debug(prepared.text, prepared.kernel_name, shim, request.extra_options);
        if (!instrumented) {
            out.diagnostics.push_back(Diagnostic{user_path, 0, 0, Severity::Error,
                                                 "the debugger's copy of the kernel could not be made: " +
                                                     instrumented.error().message,
                                                 DiagnosticOrigin::Compile});
            return out;
        }
        prepared.text = std::move(instrumented->text);
    }
    LibraryPlan plan = plan_for(prepared.text, includes, user_path, options);
    plan.kernel_name = prepared.kernel_name;
    for (const KernelDecl& k : prepared.kernels)
        if (k.name == prepared.kernel_name.substr(0, prepared.kernel_name.find('<'))) plan.kernel_line = k.line;
    plan.ignored_note = ignored_options_note(options);
    // A library in the cache passed NVRTC's check of the same source, headers and options.
    plan.key_inputs = key_prefix(compiler, shim, options.flags) + "\nnvrtc-checked=" + nvrtc_version_text();
    for (const std::string& o : request.extra_options) plan.key_inputs += "\noption=" + o;
    plan.key_inputs +=
        "\nkernel=" + prepared.kernel_name + "\nheaders=" + local_includes_fingerprint(includes) + "\n" + prepared.text;
    // Device code must obey CUDA's rules (NVRTC's front end decides).
    plan.device_check = [&request] { return check_device_code_with_nvrtc(request); };
    return build_library(plan, compiler, shim, cache_dir, std::move(out));
}

CpuCompileOutput compile_host_library(const HostLibraryRequest& request, const HostCompiler& compiler,
                                      const ShimLocation& shim, const fs::path& cache_dir) {
    CpuCompileOutput out;
    const std::string user_path = request.path.empty() ? std::string("reference.cu") : request.path;
    const LocalIncludes includes = resolve_local_includes(request.source, user_path);
    if (has_errors(includes.diagnostics)) {
        out.diagnostics = includes.diagnostics;
        return out;
    }
    std::vector<std::string> extra;
    for (const std::string& d : request.defines) extra.push_back("-D" + d);
    HostCompileOptions options = host_compile_options(shim, extra);
    // Its entry points are found by name: plain extern "C" functions need no visibility attribute.
    options.flags.erase(std::remove(options.flags.begin(), options.flags.end(), "-fvisibility=hidden"),
                        options.flags.end());
    out.options = options.flags;
    LibraryPlan plan = plan_for("#line 1 \"" + user_path + "\"\n" + request.source, includes, user_path, options);
    plan.key_inputs = key_prefix(compiler, shim, options.flags) +
                      "\nhost library\nheaders=" + local_includes_fingerprint(includes) + "\n" + plan.text;
    return build_library(plan, compiler, shim, cache_dir, std::move(out));
}

CpuCompileOutput compile_program_library(const ProgramCompileRequest& request, const HostCompiler& compiler,
                                         const ShimLocation& shim, const fs::path& cache_dir) {
    CpuCompileOutput out;
    const std::string user_path = request.path.empty() ? std::string("program.cu") : request.path;
    LocalIncludes includes = resolve_local_includes(request.source, user_path, false, request.include_dirs);
    if (has_errors(includes.diagnostics)) {
        out.diagnostics = includes.diagnostics;
        return out;
    }
    out.buffer_align = alignment_with_headers(request.source, includes);
    const PreparedSource prepared =
        prepare_program_source(includes.rewritten_source, user_path, out.buffer_align, request.kernels_elsewhere);
    out.diagnostics = prepared.diagnostics;
    // Kernels and launches in the program's own headers are prepared as the file's are (the build folder gets the
    // prepared copies, under the names the file includes them by).
    for (LocalHeader& h : includes.headers)
        h.contents = prepare_program_header(h.contents, h.name, out.buffer_align, request.kernels_elsewhere,
                                            out.diagnostics);
    if (prepared.text.empty() || has_errors(out.diagnostics)) return out;
    HostCompileOptions options = host_compile_options(shim, request.extra_options);
    options.flags.push_back("-DCP_SHIM_PROGRAM");
    if (request.kernels_elsewhere) options.flags.push_back("-DCP_SHIM_KERNELS_ELSEWHERE");
    std::vector<std::string> checks = access_check_flags(compiler);
    if (!checks.empty()) checks.push_back(kBoundsHooksApart);
    options.flags.insert(options.flags.end(), checks.begin(), checks.end());
    out.options = options.flags;
    LibraryPlan plan = plan_for(prepared.text, includes, user_path, options);
    plan.ignored_note = ignored_options_note(options);
    plan.key_inputs = key_prefix(compiler, shim, options.flags) + "\nprogram\nheaders=" +
                      local_includes_fingerprint(includes) + "\n" + prepared.text;
    out = build_library(plan, compiler, shim, cache_dir, std::move(out));
    // A header the program reads from elsewhere (NVIDIA's samples: Common/helper_cuda.h): its folder is not given.
    const std::string missing = ": No such file or directory";
    for (Diagnostic& d : out.diagnostics)
        if (d.severity == Severity::Error && d.message.size() > missing.size() &&
            d.message.compare(d.message.size() - missing.size(), missing.size(), missing) == 0)
            d.message += "; a header from another folder is found with -I DIR (as nvcc takes it), e.g. "
                         "`-I ../Common` for NVIDIA's samples";
    return out;
}

}  // namespace cp
