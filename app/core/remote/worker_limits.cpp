// The limits file's parser, the per-user worker slots (flock on files in a folder of the user's own) and the
// device memory count that `worker --stdio` keeps in front of its backend.
#include "core/remote/worker_limits.h"

#include "core/worker/worker_process.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <type_traits>
#include <utility>
#include <variant>

namespace cp {

namespace {

constexpr uint64_t kMiB = 1024 * 1024;
constexpr const char* kKnownKeys = "device_memory_mb, launch_timeout_s, max_workers_per_user, runtime_dir";

std::string trim(const std::string& s) {
    const size_t first = s.find_first_not_of(" \t\r");
    if (first == std::string::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// Whole MB for the limit itself; amounts below 10 MB with one decimal, so "needs 0.9 MB ... holds 0.9 MB"
// adds up where rounding up to "1 MB" each did not.
std::string mb(uint64_t bytes) {
    if (bytes % kMiB == 0 || bytes >= 10 * kMiB) return std::to_string((bytes + kMiB - 1) / kMiB) + " MB";
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MB", double(bytes) / double(kMiB));
    return text;
}

// The folder of this user's slot files: RUNTIME/cuda-playground-workers-UID, made 0700 and checked to be this
// user's own (a folder someone else made in /tmp must not decide who may run).
Result<std::string> user_slots_dir(const WorkerLimits& limits) {
    const std::string dir = limits.runtime_dir_or_default() + "/cuda-playground-workers-" + std::to_string(geteuid());
    if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
        return make_error(ErrorKind::Io, "cannot make the folder of worker slots " + dir + ": " + std::strerror(errno),
                          "the server's administrator sets runtime_dir in " + limits.file);
    struct stat st {};
    if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
        return make_error(ErrorKind::Io, dir + " is not a folder of this user's own, so the workers cannot be counted",
                          "remove it (someone else made it), or set runtime_dir in " + limits.file);
    return dir;
}

}  // namespace

std::string WorkerLimits::runtime_dir_or_default() const {
    if (!runtime_dir.empty()) return runtime_dir;
    if (const char* v = std::getenv("XDG_RUNTIME_DIR"); v && *v) return v;
    return "/tmp";
}

Result<WorkerLimits> parse_worker_limits(const std::string& text, const std::string& file) {
    WorkerLimits limits;
    limits.file = file;
    std::istringstream in(text);
    std::string raw;
    std::map<std::string, int> seen;
    for (int number = 1; std::getline(in, raw); ++number) {
        const std::string where = file + " line " + std::to_string(number);
        const std::string hint = "write `key = value`, one a line, with # for comments; the keys are " +
                                 std::string(kKnownKeys) + " (see the README's \"Teaching a class\")";
        const std::string line = trim(raw.substr(0, raw.find('#')));
        if (line.empty()) continue;
        const size_t eq = line.find('=');
        if (eq == std::string::npos)
            return make_error(ErrorKind::UserInput, where + ": `" + line + "` is not `key = value`", hint);
        const std::string key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
        if (seen.count(key))
            return make_error(ErrorKind::UserInput,
                              where + ": `" + key + "` was already set on line " + std::to_string(seen[key]), hint);
        seen[key] = number;
        if (key == "runtime_dir") {
            if (value.empty() || value[0] != '/')
                return make_error(ErrorKind::UserInput, where + ": runtime_dir must be an absolute path", hint);
            limits.runtime_dir = value;
            continue;
        }
        uint64_t n = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
        const bool whole = ec == std::errc() && end == value.data() + value.size() && n > 0 && n <= (1u << 30);
        if (key != "device_memory_mb" && key != "launch_timeout_s" && key != "max_workers_per_user")
            return make_error(ErrorKind::UserInput, where + ": unknown setting `" + key + "`", hint);
        if (!whole)
            return make_error(ErrorKind::UserInput,
                              where + ": `" + key + "` must be a whole number above 0, not `" + value + "`", hint);
        if (key == "device_memory_mb") limits.device_memory_mb = n;
        if (key == "launch_timeout_s") limits.launch_timeout_s = int(n);
        if (key == "max_workers_per_user") limits.max_workers_per_user = int(n);
    }
    return limits;
}

Result<WorkerLimits> load_worker_limits() {
    std::string file = kWorkerLimitsFile;
    const char* chosen = std::getenv("CUDA_PLAYGROUND_WORKER_LIMITS");
    if (chosen && *chosen) file = chosen;
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        if (!chosen || !*chosen) return WorkerLimits{};  // no file: a server without limits
        return make_error(ErrorKind::Io, "cannot read the worker limits file " + file + ": " + std::strerror(errno),
                          "CUDA_PLAYGROUND_WORKER_LIMITS names it; fix the path or unset it");
    }
    std::ostringstream text;
    text << in.rdbuf();
    return parse_worker_limits(text.str(), file);
}

WorkerLimiter::~WorkerLimiter() {
    if (slot_fd_ >= 0) close(slot_fd_);  // the lock goes with the descriptor
}

WorkerLimiter::WorkerLimiter(WorkerLimiter&& other) noexcept
    : limits_(std::move(other.limits_)),
      slot_fd_(std::exchange(other.slot_fd_, -1)),
      buffers_(std::move(other.buffers_)),
      held_(other.held_) {}

Result<WorkerLimiter> WorkerLimiter::start(WorkerLimits limits) {
    WorkerLimiter limiter;
    limiter.limits_ = std::move(limits);
    const WorkerLimits& l = limiter.limits_;
    if (l.launch_timeout_s && launch_timeout_s() > *l.launch_timeout_s) {
        // launch_timeout_s() reads this variable; the backend's worker processes inherit it.
        setenv("CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S", std::to_string(*l.launch_timeout_s).c_str(), 1);
    }
    if (!l.max_workers_per_user) return limiter;
    auto dir = user_slots_dir(l);
    if (!dir) return dir.error();
    // One file per slot; a worker holds the first it can lock. A worker that ends in any way (closed, killed,
    // crashed) closes its descriptor, and the kernel drops the lock: no stale count to clean up.
    for (int slot = 0; slot < *l.max_workers_per_user; ++slot) {
        const std::string path = *dir + "/slot-" + std::to_string(slot);
        const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
            return make_error(ErrorKind::Io, "cannot open the worker slot " + path + ": " + std::strerror(errno),
                              "the server's administrator sets runtime_dir in " + l.file);
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            limiter.slot_fd_ = fd;
            return limiter;
        }
        close(fd);
    }
    const int n = *l.max_workers_per_user;
    return make_error(ErrorKind::UserInput,
                      "this server allows " + std::to_string(n) + " CUDA Playground worker" + (n == 1 ? "" : "s") +
                          " per user at once, and " +
                          (n == 1 ? "yours is" : "all " + std::to_string(n) + " of yours are") + " running",
                      "close another window or session of yours that uses this server (its worker ends with it), "
                      "then run again; the limit is max_workers_per_user in " +
                          l.file);
}

Response WorkerLimiter::dispatch(Backend& backend, const Request& request) {
    const auto* allocate = std::get_if<AllocateRequest>(&request);
    if (allocate && limits_.device_memory_mb) {
        const uint64_t limit = *limits_.device_memory_mb * kMiB;
        if (allocate->bytes > limit || held_ + allocate->bytes > limit) {
            AllocateResult refused;
            refused.error = engine_error(
                ErrorKind::OutOfMemory, "device memory limit",
                "`" + allocate->name + "` needs " + mb(allocate->bytes) + " of device memory, but this server allows " +
                    std::to_string(*limits_.device_memory_mb) + " MB per student and this worker holds " + mb(held_),
                "use smaller sizes (fewer elements, a smaller image); the limit is device_memory_mb in " +
                    limits_.file);
            return refused;
        }
    }
    Response response = dispatch_request(backend, request);
    if (auto* a = std::get_if<AllocateResult>(&response); a && allocate && !a->error) {
        buffers_[a->buffer] = allocate->bytes;
        held_ += allocate->bytes;
    }
    if (const auto* release = std::get_if<ReleaseRequest>(&request)) {
        for (BufferId id : release->buffers) {
            if (auto it = buffers_.find(id); it != buffers_.end()) {
                held_ -= it->second;
                buffers_.erase(it);
            }
        }
    }
    // A reset context took every buffer with it.
    std::visit(
        [&](const auto& r) {
            if constexpr (requires { r.error; }) {
                if (r.error && r.error->context_was_reset) {
                    buffers_.clear();
                    held_ = 0;
                }
            }
        },
        response);
    return response;
}

}  // namespace cp
