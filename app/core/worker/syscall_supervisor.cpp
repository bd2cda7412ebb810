// The supervisor thread: seccomp user notifications (libseccomp), the path a call names read from the
// worker's memory, the caller's stack pointer from /proc, and the answer (refuse, or hand over a descriptor).
#include "core/worker/syscall_supervisor.h"

#include <seccomp.h>

#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <thread>
#include <utility>

namespace cp {

namespace {

bool one_of(const std::string& s, std::initializer_list<const char*> names) {
    for (const char* n : names)
        if (s == n) return true;
    return false;
}

// The syscalls whose first (or second, for the *at forms) argument is a path.
int path_argument(const std::string& name) {
    if (one_of(name, {"open",     "creat",     "unlink",      "rmdir",
                      "mkdir",    "rename",    "link",        "symlink",
                      "truncate", "chmod",     "chown",       "lchown",
                      "utime",    "utimes",    "mknod",       "execve",
                      "readlink", "stat",      "lstat",       "access",
                      "setxattr", "lsetxattr", "removexattr", "lremovexattr",
                      "getxattr", "lgetxattr", "listxattr",   "llistxattr",
                      "chdir",    "chroot",    "statfs",      "inotify_add_watch"}))
        return name == "inotify_add_watch" ? 1 : 0;
    if (one_of(name,
               {"openat",     "openat2",    "unlinkat",  "mkdirat",    "renameat",  "renameat2",        "linkat",
                "fchmodat",   "fchmodat2",  "fchownat",  "utimensat",  "futimesat", "mknodat",          "execveat",
                "readlinkat", "newfstatat", "faccessat", "faccessat2", "statx",     "name_to_handle_at"}))
        return 1;
    if (name == "symlinkat") return 2;
    return -1;
}

// A NUL-terminated string from the worker's memory (empty when unreadable), read page by page so a string
// near the end of a mapping is still read.
std::string read_worker_string(pid_t pid, uint64_t address) {
    std::string out;
    while (address && out.size() < 4096) {
        char chunk[256];
        const size_t to_page_end = 4096 - (address % 4096);
        const size_t want = std::min(sizeof chunk, to_page_end);
        iovec local{chunk, want}, remote{reinterpret_cast<void*>(address), want};
        const ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
        if (got <= 0) break;
        const void* nul = std::memchr(chunk, 0, size_t(got));
        if (nul) {
            out.append(chunk, size_t(static_cast<const char*>(nul) - chunk));
            return out;
        }
        out.append(chunk, size_t(got));
        address += uint64_t(got);
    }
    return out;
}

// The stack pointer of a thread stopped in a system call: /proc/PID/task/TID/syscall is
// "nr arg0 .. arg5 sp pc" once the thread sleeps, and "running" before. The calling thread queues its
// notification and only then goes to sleep waiting for the answer; on a loaded machine it can be preempted in
// between, and a read then says "running" (the report lost its line: CpuSandbox and HostileFiles tests failed
// now and then). It cannot go on without the answer, so wait until it sleeps; the bound only covers a thread
// that left the call (a signal interrupted it).
uint64_t stack_pointer_of(pid_t pid, pid_t tid) {
    const std::string path = "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/syscall";
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    for (;;) {
        std::ifstream in(path);
        std::string word;
        std::vector<std::string> words;
        while (in >> word) words.push_back(word);
        if (words.size() >= 9) return std::strtoull(words[7].c_str(), nullptr, 16);
        if (words.size() != 1 || words[0] != "running" || std::chrono::steady_clock::now() > give_up) return 0;
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
}

}  // namespace

std::string describe_refused_call(const std::string& name, const uint64_t args[6], const std::string& path) {
    const std::string file = path.empty() ? std::string("a file") : "the file " + path;
    if (one_of(name, {"execve", "execveat", "fork", "vfork", "clone", "clone3"})) return "start a program";
    if (one_of(name, {"socket", "socketpair", "connect", "bind", "listen", "accept", "accept4", "socketcall"}))
        return "open a network connection";
    if (one_of(name, {"open", "openat", "openat2", "creat"})) {
        const uint64_t flags = name == "open" ? args[1] : name == "openat" ? args[2] : 0;
        const bool writes = name == "creat" || (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)) != 0;
        return (writes ? "write " : "read ") + file;
    }
    if (one_of(name, {"unlink", "unlinkat", "rmdir"})) return "delete " + file;
    if (one_of(name, {"rename", "renameat", "renameat2", "link", "linkat", "symlink", "symlinkat", "mkdir", "mkdirat",
                      "mknod", "mknodat"}))
        return "create " + file;
    if (one_of(name, {"truncate", "ftruncate", "chmod",     "fchmod",      "fchmodat",     "fchmodat2",   "chown",
                      "fchown",   "lchown",    "fchownat",  "utime",       "utimes",       "utimensat",   "futimesat",
                      "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr"}))
        return "change " + file;
    if (one_of(name,
               {"kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open", "pidfd_send_signal"}))
        return "send a signal to another process";
    if (one_of(name, {"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp"}))
        return "look into another process";
    if (!path.empty()) return "use " + file + " (system call `" + name + "`)";
    return "make the system call `" + name + "`";
}

SyscallSupervisor::SyscallSupervisor(int listener, pid_t worker, Observer observer)
    : listener_(listener), worker_(worker), observer_(std::move(observer)) {
    if (pipe2(wake_, O_CLOEXEC) != 0) wake_[0] = wake_[1] = -1;
    thread_ = std::thread([this] { loop(); });
}

SyscallSupervisor::~SyscallSupervisor() {
    if (wake_[1] >= 0) {
        const char c = 'q';
        (void)!write(wake_[1], &c, 1);
    }
    thread_.join();
    for (int fd : {listener_, wake_[0], wake_[1]})
        if (fd >= 0) close(fd);
}

void SyscallSupervisor::set_library(const std::string& path) {
    std::lock_guard lock(mutex_);
    library_ = path;
}

void SyscallSupervisor::set_read_folder(const std::string& folder) {
    std::string canonical;
    if (!folder.empty()) {
        char resolved[PATH_MAX];
        if (::realpath(folder.c_str(), resolved)) canonical = resolved;
    }
    std::lock_guard lock(mutex_);
    read_folder_ = canonical;
}

std::vector<BlockedCall> SyscallSupervisor::take_blocked() {
    std::lock_guard lock(mutex_);
    return std::exchange(blocked_, {});
}

void SyscallSupervisor::loop() {
    for (;;) {
        pollfd fds[2] = {{listener_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
        const int ready = poll(fds, wake_[0] >= 0 ? 2 : 1, -1);
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0 || fds[1].revents) return;
        if (fds[0].revents & POLLIN)
            handle_one();
        else if (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL))
            return;  // the worker is gone
    }
}

// Files the C library itself reads to count CPUs, and the one malloc reads the first time a thread's heap
// shrinks (glibc's check_may_shrink_heap; a kernel that printed a lot freed enough to trigger it): refusing
// them is harmless (the library falls back to a default) and quiet, since no kernel asked for them.
static bool quietly_refused(const std::string& path) {
    return path == "/sys/devices/system/cpu/online" || path == "/sys/devices/system/cpu/possible" ||
           path == "/proc/stat" || path == "/proc/cpuinfo" || path == "/proc/sys/vm/overcommit_memory";
}

// Answers the worker's open with a descriptor of `path` the app opens itself (`flags`), then frees the request.
void SyscallSupervisor::hand_over(seccomp_notif* request, seccomp_notif_resp* response, const std::string& path,
                                  int flags) {
    const int mine = open(path.c_str(), flags);
    const int open_error = errno;
    seccomp_notif_addfd add{};
    add.id = request->id;
    add.srcfd = uint32_t(mine);
    add.newfd_flags = O_CLOEXEC;
    const int fd = mine >= 0 ? ioctl(listener_, SECCOMP_IOCTL_NOTIF_ADDFD, &add) : -1;
    if (mine >= 0) close(mine);
    response->val = fd;
    response->error = fd >= 0 ? 0 : -(mine >= 0 ? EACCES : open_error);
    seccomp_notify_respond(listener_, response);
    seccomp_notify_free(request, response);
}

void SyscallSupervisor::handle_one() {
    seccomp_notif* request = nullptr;
    seccomp_notif_resp* response = nullptr;
    if (seccomp_notify_alloc(&request, &response) != 0) return;
    std::memset(request, 0, sizeof *request);  // the kernel insists on a zeroed request
    if (seccomp_notify_receive(listener_, request) != 0) {
        seccomp_notify_free(request, response);
        return;  // the caller died meanwhile
    }
    char* resolved = seccomp_syscall_resolve_num_arch(request->data.arch, request->data.nr);
    const std::string name = resolved ? resolved : "#" + std::to_string(request->data.nr);
    std::free(resolved);
    const int path_arg = path_argument(name);
    const std::string path = path_arg >= 0 ? read_worker_string(worker_, request->data.args[path_arg]) : std::string();

    std::memset(response, 0, sizeof *response);
    response->id = request->id;
    std::string library;
    {
        std::lock_guard lock(mutex_);
        library = library_;
    }
    std::string read_folder;
    {
        std::lock_guard lock(mutex_);
        read_folder = read_folder_;
    }
    const bool opens = name == "open" || name == "openat";
    // A program reading a file of its own folder: opened here, read only, after its path is resolved (a relative one
    // from the folder, an openat relative to another descriptor is not followed), links included.
    if (opens && !read_folder.empty() && !path.empty()) {
        const uint64_t flags = name == "open" ? request->data.args[1] : request->data.args[2];
        const bool from_cwd = name == "open" || int(request->data.args[0]) == AT_FDCWD || path.front() == '/';
        const bool read_only = (flags & O_ACCMODE) == O_RDONLY && !(flags & (O_CREAT | O_TRUNC | O_APPEND));
        if (read_only && from_cwd) {
            const std::string full = path.front() == '/' ? path : read_folder + "/" + path;
            char real[PATH_MAX];
            const bool found = ::realpath(full.c_str(), real) != nullptr;
            const std::string canonical = found ? std::string(real) : std::string();
            const bool inside = found && canonical.size() > read_folder.size() &&
                                canonical.compare(0, read_folder.size(), read_folder) == 0 &&
                                canonical[read_folder.size()] == '/';
            if (inside) {
                hand_over(request, response, canonical, O_RDONLY | O_CLOEXEC | (int(flags) & O_DIRECTORY));
                return;
            }
            if (!found && path.front() != '/' && path.find("..") == std::string::npos) {
                // Not there: the program learns so as it would from its own folder (fopen returns NULL, ENOENT).
                response->error = -ENOENT;
                seccomp_notify_respond(listener_, response);
                seccomp_notify_free(request, response);
                return;
            }
        }
    }
    if (opens && !library.empty() && path == library) {
        // dlopen of the kernel library: the app opens the file it means (the path the worker passed was
        // copied before this check, so changing it afterwards changes nothing) and hands the descriptor over.
        hand_over(request, response, library, O_RDONLY | O_CLOEXEC);
        return;
    }

    if (opens && quietly_refused(path)) {
        // The C library counts CPUs from these (glibc 2.39 does so when a thread first allocates): the call
        // fails as if the file were missing, the library falls back to sched_getaffinity, and it is nothing a
        // kernel did, so nothing is reported.
        response->error = -ENOENT;
        seccomp_notify_respond(listener_, response);
        seccomp_notify_free(request, response);
        return;
    }

    BlockedCall call;
    call.tid = pid_t(request->pid);
    call.syscall = name;
    uint64_t args[6];
    for (int i = 0; i < 6; ++i) args[i] = request->data.args[i];
    call.attempt = describe_refused_call(name, args, path);
    call.instruction = request->data.instruction_pointer;
    call.stack_pointer = stack_pointer_of(worker_, call.tid);
    if (observer_) observer_(call);
    // Recorded before the answer: once answered, the worker may finish its request at once, and the app's
    // take_blocked() must already see the call (recording it afterwards lost the report under load).
    {
        std::lock_guard lock(mutex_);
        if (blocked_.size() < 64) blocked_.push_back(std::move(call));
    }
    // Refused: the call fails in the worker as if the kernel had said no.
    response->error = path_arg >= 0 ? -EACCES : -EPERM;
    seccomp_notify_respond(listener_, response);
    seccomp_notify_free(request, response);
}

}  // namespace cp
