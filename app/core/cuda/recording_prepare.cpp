// The background preparation of a kernel's recording copy (recording_prepare.h).
#include "core/cuda/recording_prepare.h"

#include "core/toolkit/cubin_cache.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace cp {

namespace {

std::string file_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return {};
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

bool worth_preparing_recording(const DeviceInfo& device, const KernelFile& file) {
    if (device.backend != "cuda" || !device.where.empty() || device.arch.rfind("sm_", 0) != 0) return false;
    if (!file.signature || file.path.empty()) return false;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file.path, ec)) return false;
    return file_text(file.path) == file.source;
}

std::string this_cuda_playground() {
    if (const char* with = std::getenv("CUDA_PLAYGROUND_PREPARE_WITH"); with && *with) return with;
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return !ec && self.filename() == "cuda-playground" ? self.string() : std::string();
}

RecordingPreparer::~RecordingPreparer() {
    std::lock_guard lock(mutex_);
    stop();
}

void RecordingPreparer::stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
}

bool RecordingPreparer::running() {
    std::lock_guard lock(mutex_);
    if (pid_ <= 0) return false;
    int status = 0;
    const pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == 0) return true;
    pid_ = -1;  // finished (or not ours any more)
    return false;
}

int RecordingPreparer::wait_for_running() {
    std::lock_guard lock(mutex_);
    if (pid_ <= 0) return -1;
    int status = 0;
    pid_t done;
    while ((done = waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return done > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool RecordingPreparer::prepare(const KernelFile& file, const std::string& arch) {
    std::lock_guard lock(mutex_);
    if (program_.empty() || cubin_cache_dir().empty()) return false;  // nowhere to keep it: nothing gained
    const std::string key = file.path.string() + "\n" + arch + "\n" + cache_key(file.source);
    if (!started_.insert(key).second) return false;
    stop();  // the file opened last is the one to have ready
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    std::vector<std::string> args = {program_, "compile", file.path.string(), "--memory", "--arch", arch};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int failed = posix_spawn(&pid, program_.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (failed != 0) return false;
    // Below the window and its worker: the spare cores' work, never the picture's.
    setpriority(PRIO_PROCESS, id_t(pid), 15);
    pid_ = pid;
    return true;
}

}  // namespace cp
