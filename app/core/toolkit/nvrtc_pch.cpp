// NVRTC precompiled headers: which sources qualify (their leading system includes), where this process keeps
// its PCH files, and which were made. See nvrtc_pch.h.
#include "core/toolkit/nvrtc_pch.h"

#include "core/text_util.h"

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>

#include <cerrno>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cp {

namespace {

namespace fs = std::filesystem;

bool heavy(const std::string& include) {
    for (const char* h : {"cooperative_groups", "cuda/", "cub/", "thrust/", "cuda_fp16", "cuda_bf16", "mma.h", "cuda_pipeline"})
        if (include.find(h) != std::string::npos) return true;
    return false;
}

enum class PchState { Creating, Ready, Failed };

struct PchStore {
    std::mutex mutex;
    std::map<std::string, PchState> files;  // by PCH path
};

PchStore& store() {
    static PchStore s;
    return s;
}

std::atomic<bool> g_pch_allowed{true};

// NVRTC refuses a PCH made with other options (warning 629), so every option is part of the key.
std::string options_key(const std::vector<std::string>& options, const std::string& prefix) {
    std::string key = prefix;
    for (const auto& o : options) key += '\n' + o;
    return key;
}

// The folder this process made (nullptr: none yet), and by which process: a forked child inherits the atexit
// handler but not the folder. Never freed: the handler may run after static objects are destroyed.
const fs::path* g_made_dir = nullptr;
pid_t g_made_by = 0;

}  // namespace

std::filesystem::path pch_dir_of(pid_t pid) {
    std::error_code ec;
    return fs::temp_directory_path(ec) / ("cuda-playground-pch-" + std::to_string(pid));
}

size_t remove_stale_pch_dirs(const std::filesystem::path& parent) {
    const std::string prefix = "cuda-playground-pch-";
    size_t removed = 0;
    std::error_code ec;
    for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
        const std::string digits = name.substr(prefix.size());
        if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
        const pid_t pid = static_cast<pid_t>(std::stol(digits));
        struct stat st {};
        if (pid <= 0 || pid == ::getpid() || ::lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != ::getuid())
            continue;  // ours, not a folder (a link is never followed), or another user's
        if (::kill(pid, 0) == 0 || errno != ESRCH) continue;  // its process still runs (or is another user's)
        std::error_code rm;
        if (fs::remove_all(it->path(), rm) > 0 && !rm) ++removed;
    }
    return removed;
}

void remove_pch_dir() {
    if (!g_made_dir || g_made_by != ::getpid()) return;
    std::error_code ec;
    fs::remove_all(*g_made_dir, ec);
}

std::filesystem::path pch_dir() {
    // Computed once: $TMPDIR may point into it afterwards (use_pch_dir_for_temporary_files).
    static const fs::path dir = [] {
        std::error_code ec;
        fs::path d = pch_dir_of(::getpid());
        // The folders of processes that ended without removing theirs (killed, crashed, or a worker whose app
        // was killed first) would otherwise stay in $TMPDIR for good.
        remove_stale_pch_dirs(d.parent_path());
        fs::create_directories(d, ec);
        g_made_dir = new fs::path(d);
        g_made_by = ::getpid();
        std::atexit(remove_pch_dir);
        return d;
    }();
    std::error_code ec;
    fs::create_directories(dir, ec);  // again, should something have removed it
    return dir;
}

bool pch_turned_off_by_environment() {
    const char* off = std::getenv("CUDA_PLAYGROUND_NO_PCH");
    return off && *off && std::string(off) != "0";
}

void set_pch_allowed(bool allowed) { g_pch_allowed.store(allowed); }

bool pch_allowed() { return g_pch_allowed.load(); }

void use_pch_dir_for_temporary_files() {
    if (pch_turned_off_by_environment()) return;
    ::setenv("TMPDIR", pch_dir().c_str(), 1);
}

std::string pch_prefix(const std::string& source) {
    std::string prefix;
    bool any_heavy = false;
    size_t pos = 0;
    bool in_comment = false;
    while (pos < source.size()) {
        const size_t eol = std::min(source.find('\n', pos), source.size());
        std::string line = trim(source.substr(pos, eol - pos));
        pos = eol + 1;
        if (in_comment) {
            const size_t end = line.find("*/");
            if (end == std::string::npos) continue;
            in_comment = false;
            line = trim(line.substr(end + 2));
        }
        if (line.rfind("/*", 0) == 0) {
            const size_t end = line.find("*/", 2);
            if (end == std::string::npos) {
                in_comment = true;
                continue;
            }
            line = trim(line.substr(end + 2));
        }
        if (line.empty() || line.rfind("//", 0) == 0) continue;
        if (line[0] != '#') break;
        std::string rest = trim(line.substr(1));
        if (rest.rfind("include", 0) != 0) break;  // a #define before the includes could change them
        rest = trim(rest.substr(7));
        if (rest.empty() || rest[0] != '<') break;  // local headers change without the key knowing
        any_heavy = any_heavy || heavy(rest);
        prefix += "#include " + rest + "\n";
    }
    return any_heavy ? prefix : std::string();
}

std::vector<std::string> pch_options(const std::string& source, const std::vector<std::string>& options) {
    if (!pch_allowed()) return {};
    if (pch_turned_off_by_environment()) return {};
    const std::string prefix = pch_prefix(source);
    if (prefix.empty()) return {};
    const fs::path file = pch_dir() / (std::to_string(std::hash<std::string>{}(options_key(options, prefix))) + ".pch");
    std::lock_guard<std::mutex> lock(store().mutex);
    auto it = store().files.find(file.string());
    if (it == store().files.end()) {
        store().files[file.string()] = PchState::Creating;
        return {"--create-pch=" + file.string(), "--pch-messages=false"};
    }
    if (it->second == PchState::Ready) return {"--use-pch=" + file.string(), "--pch-messages=false"};
    return {};  // being made by another compile right now, or making it failed: compile without
}

void pch_record(const std::vector<std::string>& pch_opts, bool created) {
    for (const auto& o : pch_opts) {
        const std::string flag = "--create-pch=";
        if (o.rfind(flag, 0) != 0) continue;
        const std::string file = o.substr(flag.size());
        std::error_code ec;
        std::lock_guard<std::mutex> lock(store().mutex);
        store().files[file] = created && fs::exists(file, ec) ? PchState::Ready : PchState::Failed;
    }
}

}  // namespace cp
