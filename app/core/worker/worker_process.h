// A worker process: this same executable (/proc/self/exe) started with an environment variable that makes
// a static initialiser serve requests before main() runs, so every binary that links cp_core can be a
// worker. The app side starts it, sends a request and waits for the answer with a time limit (the
// watchdog: a worker that does not answer in time is killed), and says how it ended; the worker side
// recognises that it is one. Used by the CUDA worker (sticky GPU errors) and the CPU worker (untrusted
// kernel code in a sandbox).
#pragma once

#include "core/result.h"
#include "core/worker/wire_frame.h"

#include <sys/types.h>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cp {

struct WorkerSpawn {
    std::string env_name;      // e.g. CP_CUDA_WORKER; its value is "<fd>,<spec>"
    std::string spec;          // what the worker needs to know at start
    std::string process_name;  // argv[0] (what ps shows)
    // Handed to the child as descriptors 4, 5, ... (the socket is 3). Borrowed: the caller closes them.
    std::vector<int> extra_fds;
    // Unset: the child inherits the whole environment. Set: only the variables named here (and env_name),
    // so an untrusted worker sees no secrets that happen to be in the app's environment.
    std::optional<std::vector<std::string>> environment_allowlist;
    bool quiet_stdio = false;   // stdin and stdout from/to /dev/null
    bool quiet_stderr = false;  // stderr to /dev/null too
    // Non-empty: the worker is started under this program (e.g. compute-sanitizer and its options), which is
    // given this executable's path last; extra environment entries ("NAME=value") for the worker.
    std::vector<std::string> wrapper;
    std::vector<std::string> extra_env;
    int stop_grace_ms = 2000;  // how long a worker ending cleanly gets before it is killed
};

class WorkerProcess {
public:
    WorkerProcess() = default;
    ~WorkerProcess() { stop(true); }
    WorkerProcess(const WorkerProcess&) = delete;
    WorkerProcess& operator=(const WorkerProcess&) = delete;

    // Starts the child; an Error when it cannot be spawned.
    std::optional<Error> start(const WorkerSpawn& spawn);
    bool running() const { return pid_ > 0; }
    pid_t pid() const { return pid_; }

    enum class Outcome { Answered, TimedOut, Ended };
    struct Reply {
        Outcome outcome = Outcome::Ended;
        WireMessage message;    // Answered
        int wait_status = -1;   // Ended / TimedOut: as from waitpid (-1: unknown)
        std::string ended_how;  // Ended: "killed by signal Aborted", "exit status 3"
    };
    // Waits up to `timeout_s` for the worker's next message (e.g. its greeting after start).
    Reply receive(double timeout_s);
    // Sends `request` and waits up to `timeout_s` for the answer. TimedOut: the worker was killed (the
    // watchdog). Ended: it is gone (crashed, exited, or killed from outside); it has been reaped.
    Reply call(const WireMessage& request, double timeout_s);
    // Called with the worker's pid when a call timed out, just before the watchdog kills it (to ask it where it is).
    void set_before_timeout_kill(std::function<void(pid_t)> hook) { before_timeout_kill_ = std::move(hook); }
    // Closes the connection; a worker that does not end within 2 s (or at once with kill_now) is killed.
    void stop(bool kill_now);
    // A folder the running worker writes (e.g. its precompiled headers) and never removes itself, since it may
    // be killed: removed once the worker has ended and been reaped.
    void remove_after_exit(std::filesystem::path folder);

private:
    Reply ended();  // the connection broke: reap the child and say how it ended
    void reaped();  // pid_ is gone: forget it, remove its folders

    pid_t pid_ = -1;
    std::function<void(pid_t)> before_timeout_kill_;
    int fd_ = -1;
    int stop_grace_ms_ = 2000;
    std::vector<std::filesystem::path> remove_after_exit_;
};

// "killed by signal Aborted", "exit status 3".
std::string describe_wait_status(int status);

// CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S (a positive whole number of seconds), else 30: how long one launch may
// run on either backend before its worker is stopped.
int launch_timeout_s();

// ---- the worker's side --------------------------------------------------------------------------------

struct WorkerEntry {
    int fd = -1;       // the socket to the app
    std::string spec;  // WorkerSpawn::spec
};
// In a static initialiser: when this process was started as the worker `env_name`, removes the variable
// and returns what the app passed; nullopt in every other process.
std::optional<WorkerEntry> take_worker_entry(const char* env_name);

}  // namespace cp
