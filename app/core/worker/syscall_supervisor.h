// The app's side of a worker's sandbox (sandbox.h): a thread that receives every system call the worker's
// seccomp filter holds back, refuses it (the call fails with EPERM/EACCES in the worker, so nothing
// happens) and records in plain words what was attempted; the one exception is opening the kernel
// library being loaded, answered with the app's own descriptor for it. The decision is taken here, outside
// the worker, where kernel code cannot reach it.
#pragma once

#include <sys/types.h>

#include "core/types.h"

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

struct seccomp_notif;       // <linux/seccomp.h>
struct seccomp_notif_resp;

namespace cp {

struct BlockedCall {
    pid_t tid = 0;               // the worker thread that made the call
    std::string syscall;         // "execve"
    std::string attempt;         // "start a program", "read the file /home/me/.ssh/id_rsa"
    uint64_t stack_pointer = 0;  // where the calling thread's stack was (0: unknown)
    uint64_t instruction = 0;
    // Filled in by the observer: who it was and where in the kernel's code.
    std::string who;                       // "thread (0,0,0) of block (2,0,0)"
    std::optional<Dim3> thread = {}, block = {};  // the same as data (EngineError::thread, ::block)
    std::vector<uint64_t> code_addresses;  // return addresses into kernel code, innermost first
};

class SyscallSupervisor {
public:
    // Called on the supervisor thread for each refused call while the calling thread still waits, so it
    // can read the worker's memory (who was running, the stack).
    using Observer = std::function<void(BlockedCall&)>;
    // Takes ownership of `listener` (the worker's seccomp listener descriptor).
    SyscallSupervisor(int listener, pid_t worker, Observer observer);
    ~SyscallSupervisor();
    SyscallSupervisor(const SyscallSupervisor&) = delete;
    SyscallSupervisor& operator=(const SyscallSupervisor&) = delete;

    // While set, the worker's opening of exactly `path` (dlopen of a kernel library) is answered with a
    // descriptor the app opens itself (read only). Empty: no file may be opened.
    void set_library(const std::string& path);
    // While set (a whole program's run), a read-only open of a file beneath `folder` is answered with a descriptor
    // the app opens itself: a relative path is taken from `folder` (the program runs as if started there), links are
    // followed before the check, and nothing is ever opened for writing. Empty: none.
    void set_read_folder(const std::string& folder);
    // The calls refused since the last take, in order.
    std::vector<BlockedCall> take_blocked();

private:
    void loop();
    void handle_one();
    void hand_over(::seccomp_notif* request, ::seccomp_notif_resp* response, const std::string& path, int flags);

    int listener_;
    pid_t worker_;
    Observer observer_;
    int wake_[2] = {-1, -1};
    std::mutex mutex_;
    std::string library_;
    std::string read_folder_;  // canonical; empty: no reads
    std::vector<BlockedCall> blocked_;
    std::thread thread_;
};

// "start a program", "open a network connection", "read the file PATH"... for a refused system call with
// its arguments (`path`: the file it named, when it names one).
std::string describe_refused_call(const std::string& syscall, const uint64_t args[6], const std::string& path);

}  // namespace cp
