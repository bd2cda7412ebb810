// Worker processes: posix_spawn of /proc/self/exe with the socket as descriptor 3, calls with a time
// limit, stopping and reaping, and the worker's own recognition of what it is.
#include "core/worker/worker_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

extern char** environ;

namespace cp {

namespace {

constexpr int kWorkerFd = 3;
constexpr int kDefaultLaunchTimeoutS = 30;

int to_ms(double seconds) {
    return seconds < 0 ? -1 : int(std::min(seconds * 1000.0, 2.0e9));
}

bool named(const char* entry, const std::string& name) {
    return std::strncmp(entry, name.c_str(), name.size()) == 0 && entry[name.size()] == '=';
}

}  // namespace

std::string describe_wait_status(int status) {
    if (status < 0) return "unknown status";
    if (WIFSIGNALED(status)) return std::string("killed by signal ") + strsignal(WTERMSIG(status));
    if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
    return "status " + std::to_string(status);
}

int launch_timeout_s() {
    if (const char* v = std::getenv("CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S"); v && std::atoi(v) > 0) return std::atoi(v);
    return kDefaultLaunchTimeoutS;
}

std::optional<Error> WorkerProcess::start(const WorkerSpawn& spawn) {
    stop(true);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return make_error(ErrorKind::WorkerLost, "could not start the " + spawn.process_name +
                                                     " process: socketpair failed: " + std::strerror(errno));
    // dup2(fd, fd) would keep close-on-exec set, so the child's end must not already be one of the target
    // numbers; the same goes for the extra descriptors.
    const int first_free = kWorkerFd + 1 + int(spawn.extra_fds.size());
    auto move_up = [&](int fd) {
        const int moved = fcntl(fd, F_DUPFD_CLOEXEC, first_free);
        close(fd);
        return moved;
    };
    if (sv[1] < first_free) sv[1] = move_up(sv[1]);
    std::vector<int> extra;
    for (int fd : spawn.extra_fds) extra.push_back(fcntl(fd, F_DUPFD_CLOEXEC, first_free));

    const std::string value = spawn.env_name + "=" + std::to_string(kWorkerFd) + "," + spawn.spec;
    std::vector<char*> env;
    for (char** e = environ; e && *e; ++e) {
        if (named(*e, spawn.env_name)) continue;
        if (spawn.environment_allowlist) {
            bool keep = false;
            for (const std::string& name : *spawn.environment_allowlist) keep = keep || named(*e, name);
            if (!keep) continue;
        }
        env.push_back(*e);
    }
    env.push_back(const_cast<char*>(value.c_str()));
    std::vector<std::string> extra_env = spawn.extra_env;
    for (std::string& e : extra_env) env.push_back(e.data());
    env.push_back(nullptr);
    std::vector<std::string> words = {spawn.process_name};
    std::string program = "/proc/self/exe";
    if (!spawn.wrapper.empty()) {
        // The wrapper starts the worker itself, so it needs this executable's real path.
        char exe[4096] = {};
        if (readlink("/proc/self/exe", exe, sizeof exe - 1) <= 0) std::strcpy(exe, "/proc/self/exe");
        words = spawn.wrapper;
        words.push_back(exe);
        program = spawn.wrapper.front();
    }
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (spawn.quiet_stdio) {
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    }
    if (spawn.quiet_stderr) posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, sv[1], kWorkerFd);
    for (size_t i = 0; i < extra.size(); ++i)
        posix_spawn_file_actions_adddup2(&actions, extra[i], kWorkerFd + 1 + int(i));
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), env.data());
    posix_spawn_file_actions_destroy(&actions);
    close(sv[1]);
    for (int fd : extra) close(fd);
    if (rc != 0) {
        close(sv[0]);
        return make_error(ErrorKind::WorkerLost,
                          "could not start the " + spawn.process_name + " process: " + std::strerror(rc));
    }
    pid_ = pid;
    fd_ = sv[0];
    stop_grace_ms_ = spawn.stop_grace_ms;
    return std::nullopt;
}

void WorkerProcess::stop(bool kill_now) {
    if (fd_ >= 0) close(fd_);  // the worker sees the end of its input and exits
    fd_ = -1;
    if (pid_ <= 0) return;
    int status = 0;
    if (kill_now) kill(pid_, SIGKILL);
    // Give a worker that is finishing cleanly two seconds (or stop_grace_ms) before killing it.
    for (int waited_ms = 0; waitpid(pid_, &status, WNOHANG) == 0; waited_ms += 5) {
        if (waited_ms >= stop_grace_ms_) {
            kill(pid_, SIGKILL);
            waitpid(pid_, &status, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    reaped();
}

void WorkerProcess::remove_after_exit(std::filesystem::path folder) {
    if (pid_ > 0 && !folder.empty()) remove_after_exit_.push_back(std::move(folder));
}

void WorkerProcess::reaped() {
    pid_ = -1;
    for (const auto& folder : remove_after_exit_) {
        std::error_code ec;
        std::filesystem::remove_all(folder, ec);
    }
    remove_after_exit_.clear();
}

WorkerProcess::Reply WorkerProcess::ended() {
    Reply r;
    r.outcome = Outcome::Ended;
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
    if (pid_ > 0) {
        int status = 0;
        pid_t got = -1;
        while ((got = waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
        }
        if (got == pid_) r.wait_status = status;
    }
    reaped();
    r.ended_how = describe_wait_status(r.wait_status);
    return r;
}

WorkerProcess::Reply WorkerProcess::receive(double timeout_s) {
    Reply r;
    if (fd_ < 0) return ended();
    const ReadStatus s = read_message(fd_, to_ms(timeout_s), &r.message);
    if (s == ReadStatus::Ok) {
        r.outcome = Outcome::Answered;
        return r;
    }
    if (s == ReadStatus::TimedOut) {
        // The watchdog: a worker that did not answer in time is stopped, whatever it is doing.
        if (pid_ > 0 && before_timeout_kill_) before_timeout_kill_(pid_);
        if (pid_ > 0) kill(pid_, SIGKILL);
        Reply gone = ended();
        gone.outcome = Outcome::TimedOut;
        return gone;
    }
    return ended();
}

WorkerProcess::Reply WorkerProcess::call(const WireMessage& request, double timeout_s) {
    if (fd_ < 0 || !write_message(fd_, request)) return ended();
    return receive(timeout_s);
}

std::optional<WorkerEntry> take_worker_entry(const char* env_name) {
    const char* value = std::getenv(env_name);
    if (!value) return std::nullopt;
    WorkerEntry entry;
    const char* comma = std::strchr(value, ',');
    entry.fd = std::atoi(value);
    entry.spec = comma ? comma + 1 : "";
    unsetenv(env_name);
    if (entry.fd < 0) std::_Exit(3);
    return entry;
}

}  // namespace cp
