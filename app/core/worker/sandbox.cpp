// The sandbox: probing the kernel, Landlock rulesets (our own definitions of the ABI, so that newer
// access rights work with older headers), the worker's seccomp filter (libseccomp), and confined threads.
//
// Sections: probe · Landlock · worker sandbox · confined threads · summary
#include "core/worker/sandbox.h"

#include <seccomp.h>

#include <fcntl.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace cp {

// ---- probe ----------------------------------------------------------------------------------------------

namespace {

bool kernel_at_least(const std::string& release, int major, int minor) {
    int a = 0, b = 0;
    if (std::sscanf(release.c_str(), "%d.%d", &a, &b) != 2) return false;
    return a > major || (a == major && b >= minor);
}

}  // namespace

const SandboxSupport& sandbox_support() {
    static const SandboxSupport support = [] {
        SandboxSupport s;
        utsname u{};
        if (uname(&u) == 0) s.kernel_release = u.release;
        // User notification (5.0) and handing a descriptor to the notified process (5.9).
        s.seccomp_notify = seccomp_api_get() >= 5 && kernel_at_least(s.kernel_release, 5, 9);
#ifdef SYS_landlock_create_ruleset
        const long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, 1u /* LANDLOCK_CREATE_RULESET_VERSION */);
        s.landlock_abi = abi > 0 ? int(abi) : 0;
#endif
        return s;
    }();
    return support;
}

// ---- Landlock -------------------------------------------------------------------------------------------

namespace {

// The kernel's ABI (include/uapi/linux/landlock.h), spelled out because distribution headers lag behind.
struct LandlockRulesetAttr {
    uint64_t handled_access_fs = 0;
    uint64_t handled_access_net = 0;  // ABI 4
    uint64_t scoped = 0;              // ABI 6
};
struct __attribute__((packed)) LandlockPathBeneath {
    uint64_t allowed_access;
    int32_t parent_fd;
};
constexpr uint64_t kFsExecute = 1ull << 0, kFsWriteFile = 1ull << 1, kFsReadFile = 1ull << 2, kFsReadDir = 1ull << 3,
                   kFsTruncate = 1ull << 14, kFsIoctlDev = 1ull << 15;
constexpr uint64_t kFsMakeAndRemove = 0x1FF0ull;  // REMOVE_DIR .. MAKE_SYM (bits 4-12)
constexpr uint64_t kFsRefer = 1ull << 13;
constexpr int kRulePathBeneath = 1;

uint64_t handled_fs(int abi) {
    uint64_t fs = (1ull << 13) - 1;  // ABI 1
    if (abi >= 2) fs |= kFsRefer;
    if (abi >= 3) fs |= kFsTruncate;
    if (abi >= 5) fs |= kFsIoctlDev;
    return fs;
}

// A ruleset refusing everything Landlock can refuse at `abi`, except `read`/`read_write` beneath the given
// paths. -1 when Landlock is not offered.
int make_ruleset(int abi, const std::vector<std::filesystem::path>& read,
                 const std::vector<std::filesystem::path>& read_write) {
#ifdef SYS_landlock_create_ruleset
    if (abi <= 0) return -1;
    LandlockRulesetAttr attr;
    attr.handled_access_fs = handled_fs(abi);
    if (abi >= 4) attr.handled_access_net = 3;  // bind and connect TCP
    if (abi >= 6) attr.scoped = 3;              // abstract unix sockets and signals outside the domain
    const int ruleset = int(syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0));
    if (ruleset < 0) return -1;
    const uint64_t file_rights = kFsExecute | kFsWriteFile | kFsReadFile | kFsTruncate | kFsIoctlDev;
    auto add = [&](const std::filesystem::path& p, uint64_t access) {
        const int fd = open(p.c_str(), O_PATH | O_CLOEXEC);
        if (fd < 0) return;  // a folder that does not exist here needs no rule
        struct stat st {};
        if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) access &= file_rights;
        LandlockPathBeneath rule{access & attr.handled_access_fs, fd};
        syscall(SYS_landlock_add_rule, ruleset, kRulePathBeneath, &rule, 0);
        close(fd);
    };
    for (const auto& p : read) add(p, kFsExecute | kFsReadFile | kFsReadDir);
    for (const auto& p : read_write) add(p, attr.handled_access_fs & ~kFsExecute);
    return ruleset;
#else
    (void)abi;
    (void)read;
    (void)read_write;
    return -1;
#endif
}

// Confines the calling thread (and what it starts later) to `ruleset`. False when it could not.
bool restrict_thread(int ruleset) {
#ifdef SYS_landlock_restrict_self
    if (ruleset < 0) return false;
    const bool ok = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && syscall(SYS_landlock_restrict_self, ruleset, 0) == 0;
    close(ruleset);
    return ok;
#else
    (void)ruleset;
    return false;
#endif
}

// ---- worker sandbox -------------------------------------------------------------------------------------

// What kernel code and the worker itself may do without asking: compute, memory, threads, time, and I/O on
// descriptors the worker already holds (its socket to the app, shared memory). Opening anything by path is
// not here: the app decides each open (the only one it grants is the kernel library being loaded).
// clang-format off
constexpr const char* kAllowed[] = {
    // memory
    "brk", "mmap", "mmap2", "munmap", "mremap", "mprotect", "madvise", "msync", "mincore",
    "membarrier", "pkey_alloc", "pkey_free", "pkey_mprotect", "memfd_create",
    // threads and scheduling
    "set_robust_list", "get_robust_list", "rseq", "futex", "futex_waitv", "set_tid_address", "exit", "exit_group",
    "sched_yield", "sched_getaffinity", "sched_getparam", "sched_getscheduler", "getcpu", "gettid", "getpid",
    "getppid", "getuid", "geteuid", "getgid", "getegid", "getresuid", "getresgid", "getpgrp", "getpgid", "getsid",
    "arch_prctl", "capget",
    // time
    "clock_gettime", "clock_getres", "gettimeofday", "time", "nanosleep", "clock_nanosleep", "times", "getrusage",
    "getitimer", "setitimer", "alarm", "timer_create", "timer_settime", "timer_gettime", "timer_getoverrun",
    "timer_delete", "timerfd_create", "timerfd_settime", "timerfd_gettime",
    // signals within the process
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending", "rt_sigsuspend", "rt_sigtimedwait",
    "sigaltstack", "restart_syscall", "pause",
    // descriptors already held
    "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "preadv2", "pwritev2", "close",
    "close_range", "fstat", "lseek", "_llseek", "fcntl", "fcntl64", "dup", "dup2", "dup3", "poll", "ppoll", "select",
    "pselect6", "_newselect", "epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait",
    "epoll_pwait2", "eventfd", "eventfd2", "pipe", "pipe2", "recvmsg", "recvfrom", "sendmsg", "sendto", "recvmmsg",
    "sendmmsg", "shutdown", "getsockopt", "getsockname", "getpeername", "fstatfs", "fsync", "fdatasync",
    "getdents64", "fadvise64", "readahead",
    // facts about the machine (no secrets)
    "uname", "sysinfo", "getrandom", "getcwd",
};
// clang-format on

std::optional<std::string> build_worker_filter(scmp_filter_ctx ctx, const std::vector<int>& device_fds) {
    auto allow = [&](int nr, unsigned count = 0, const scmp_arg_cmp* args = nullptr) {
        return seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, nr, count, args);
    };
    for (const char* name : kAllowed) {
        const int nr = seccomp_syscall_resolve_name(name);
        if (nr == __NR_SCMP_ERROR) continue;  // not a system call on this architecture
        if (allow(nr) != 0) return std::string("cannot allow ") + name;
    }
    const pid_t self = getpid();
    // Threads yes (CLONE_THREAD), processes no. glibc tries clone3 first (its arguments are in memory a
    // filter cannot read) and falls back to clone when told clone3 does not exist.
    const scmp_arg_cmp thread_only = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD);
    if (allow(SCMP_SYS(clone), 1, &thread_only) != 0) return "cannot allow threads";
    if (const int nr = seccomp_syscall_resolve_name("clone3"); nr != __NR_SCMP_ERROR)
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
    // Signals and memory reads to itself only (raise, abort; the crash report reads its own stack).
    const scmp_arg_cmp to_self = SCMP_A0(SCMP_CMP_EQ, scmp_datum_t(self));
    for (int nr : {SCMP_SYS(kill), SCMP_SYS(tgkill), SCMP_SYS(process_vm_readv)})
        if (allow(nr, 1, &to_self) != 0) return "cannot allow signals to itself";
    // fstat() is newfstatat(fd, "", AT_EMPTY_PATH) in glibc: the descriptor's own facts. (A path given with
    // the flag is looked up as usual, which tells no more than whether a file exists and its size.)
    const scmp_arg_cmp empty_path = SCMP_A3(SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, AT_EMPTY_PATH);
    allow(SCMP_SYS(newfstatat), 1, &empty_path);
    if (const int nr = seccomp_syscall_resolve_name("statx"); nr != __NR_SCMP_ERROR) {
        const scmp_arg_cmp statx_empty = SCMP_A2(SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, AT_EMPTY_PATH);
        allow(nr, 1, &statx_empty);
    }
    // Reading a limit, never raising one.
    const scmp_arg_cmp no_new_limit = SCMP_A2(SCMP_CMP_EQ, 0);
    allow(SCMP_SYS(prlimit64), 1, &no_new_limit);
    allow(SCMP_SYS(getrlimit));
    // isatty() on stdout/stderr (printf to a terminal asks).
    for (unsigned long request : {TCGETS, TIOCGWINSZ}) {
        const scmp_arg_cmp is = SCMP_A1(SCMP_CMP_EQ, request);
        allow(SCMP_SYS(ioctl), 1, &is);
    }
    // A GPU worker's device files (WorkerSandboxOptions::device_fds): any request, on those descriptors only.
    for (int fd : device_fds) {
        const scmp_arg_cmp on = SCMP_A0(SCMP_CMP_EQ, scmp_datum_t(fd));
        if (allow(SCMP_SYS(ioctl), 1, &on) != 0) return "cannot allow the device's ioctl";
    }
    // A few harmless prctl questions (thread names, the parent-death signal).
    for (int option : {PR_SET_NAME, PR_GET_NAME, PR_GET_DUMPABLE, PR_SET_PDEATHSIG, PR_GET_PDEATHSIG}) {
        const scmp_arg_cmp is = SCMP_A0(SCMP_CMP_EQ, scmp_datum_t(option));
        allow(SCMP_SYS(prctl), 1, &is);
    }
#if defined(__SANITIZE_ADDRESS__)
    // AddressSanitizer's runtime looks itself up when it reports.
    allow(SCMP_SYS(readlink));
    allow(SCMP_SYS(readlinkat));
#endif
    return std::nullopt;
}

// The only thread of the process, or the filter would not cover the others.
bool single_threaded() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("Threads:", 0) == 0) return std::atoi(line.c_str() + 8) == 1;
    return false;
}

}  // namespace

Result<int> enter_worker_sandbox(const WorkerSandboxOptions& options) {
    const SandboxSupport& support = sandbox_support();
    if (!options.driver_threads && !single_threaded())
        return make_error(ErrorKind::Unsupported, "the CPU worker started threads before entering its sandbox");
    // No core files: a kernel that crashes the worker must not write one either.
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
#if !defined(__SANITIZE_ADDRESS__)
    // Landlock first (its own system calls are not on the filter's list); no rule: no path can be opened.
    // (The kernel library comes through the supervisor, which kernels without user notification lack; they
    // are older than Landlock anyway.)
    if (support.seccomp_notify && support.landlock_abi > 0 &&
        !restrict_thread(make_ruleset(support.landlock_abi, {}, {})))
        return make_error(ErrorKind::Unsupported,
                          std::string("Landlock could not be applied: ") + std::strerror(errno));
#endif
    // Everything not allowed below goes to the app's supervisor, which refuses it and says what it was.
    // Without user notification (before Linux 5.9) it simply fails; then a read-only open must be allowed
    // (the kernel library is loaded by path) and, without Landlock, file reads are not confined.
    const bool supervised = support.seccomp_notify;
    scmp_filter_ctx ctx = seccomp_init(supervised ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO(EPERM));
    if (!ctx) return make_error(ErrorKind::Unsupported, "libseccomp could not start a filter");
    seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);  // 32-bit system calls: fatal
    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 1);
    std::optional<std::string> problem = build_worker_filter(ctx, options.device_fds);
    if (!supervised && !problem) {
        const scmp_arg_cmp read_only_at =
            SCMP_A2(SCMP_CMP_MASKED_EQ, uint64_t(O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND), 0);
        const scmp_arg_cmp read_only =
            SCMP_A1(SCMP_CMP_MASKED_EQ, uint64_t(O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND), 0);
        seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1, &read_only_at);
        if (const int nr = seccomp_syscall_resolve_name("open"); nr != __NR_SCMP_ERROR)
            seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, nr, 1, &read_only);
    }
    if (problem) {
        seccomp_release(ctx);
        return make_error(ErrorKind::Unsupported, "the seccomp filter could not be built: " + *problem);
    }
    const int rc = seccomp_load(ctx);
    const int listener = rc == 0 && supervised ? seccomp_notify_fd(ctx) : -1;
    seccomp_release(ctx);
    if (rc != 0)
        return make_error(ErrorKind::Unsupported,
                          std::string("the seccomp filter could not be loaded: ") + std::strerror(-rc));
    if (supervised && listener < 0) return make_error(ErrorKind::Unsupported, "the seccomp filter has no listener");
    return listener;
}

// ---- scripts ---------------------------------------------------------------------------------------------

std::optional<Error> enter_script_sandbox(const FileAccessPolicy& policy) {
    const SandboxSupport& support = sandbox_support();
    if (support.landlock_abi <= 0)
        return make_error(ErrorKind::Unsupported,
                          "this Linux kernel (" + support.kernel_release +
                              ") does not offer Landlock, which confines what a script may read and write",
                          "run scripts on Linux 5.13 or later with Landlock enabled (lsm=landlock)");
    if (!single_threaded()) return make_error(ErrorKind::Internal, "the script's process started threads too early");
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    if (!restrict_thread(make_ruleset(support.landlock_abi, policy.read, policy.read_write)))
        return make_error(ErrorKind::Unsupported, std::string("Landlock could not be applied: ") + std::strerror(errno));
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) return make_error(ErrorKind::Unsupported, "libseccomp could not start a filter");
    seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 1);
    int failed = 0;
    auto refuse = [&](const char* name, int err, unsigned count = 0, const scmp_arg_cmp* args = nullptr) {
        const int nr = seccomp_syscall_resolve_name(name);
        if (nr == __NR_SCMP_ERROR) return;  // not a system call on this architecture
        failed |= seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(err), nr, count, args);
    };
    // Threads yes, processes no (glibc's posix_spawn tries clone3 first and falls back to clone).
    const scmp_arg_cmp process = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0);
    refuse("clone", EPERM, 1, &process);
    refuse("clone3", ENOSYS);
    refuse("fork", EPERM);
    refuse("vfork", EPERM);
    // Unix sockets only (Python's own socketpair()s); no network, whatever Landlock's ABI covers.
    const scmp_arg_cmp not_unix = SCMP_A0(SCMP_CMP_NE, AF_UNIX);
    refuse("socket", EPERM, 1, &not_unix);
    for (const char* name : {"ptrace", "process_vm_readv", "process_vm_writev", "mount", "umount2", "pivot_root",
                             "chroot", "unshare", "setns", "bpf", "perf_event_open", "kexec_load", "kexec_file_load",
                             "init_module", "finit_module", "delete_module", "keyctl", "add_key", "request_key",
                             "reboot", "swapon", "swapoff", "io_uring_setup", "io_uring_enter", "io_uring_register",
                             "userfaultfd", "open_by_handle_at", "name_to_handle_at", "fanotify_init", "acct",
                             "settimeofday", "clock_settime", "adjtimex", "sethostname", "setdomainname", "quotactl",
                             "mount_setattr", "fsopen", "fsmount", "move_mount", "open_tree"})
        refuse(name, EPERM);
    const int rc = failed ? -1 : seccomp_load(ctx);
    seccomp_release(ctx);
    if (rc != 0) return make_error(ErrorKind::Unsupported, "the script's seccomp filter could not be loaded");
    return std::nullopt;
}

// ---- confined threads -----------------------------------------------------------------------------------

namespace {

class ConfinedThread {
public:
    explicit ConfinedThread(const FileAccessPolicy& policy) : thread_([this, policy] { loop(policy); }) {}
    ~ConfinedThread() {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }
    bool confined() {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [this] { return started_; });
        return confined_;
    }
    void run(const std::function<void()>& task) {
        std::promise<void> done;
        auto finished = done.get_future();
        {
            std::lock_guard lock(mutex_);
            tasks_.emplace_back([&] {
                task();
                done.set_value();
            });
        }
        cv_.notify_all();
        finished.wait();
    }

private:
    void loop(const FileAccessPolicy& policy) {
        const bool ok = restrict_thread(make_ruleset(sandbox_support().landlock_abi, policy.read, policy.read_write));
        {
            std::lock_guard lock(mutex_);
            started_ = true;
            confined_ = ok;
        }
        cv_.notify_all();
        for (;;) {
            std::function<void()> task;
            {
                std::unique_lock lock(mutex_);
                cv_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
                if (tasks_.empty()) return;
                task = std::move(tasks_.front());
                tasks_.pop_front();
            }
            task();
        }
    }

    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<std::function<void()>> tasks_;
    bool stopping_ = false, started_ = false, confined_ = false;
    std::thread thread_;  // last: started once the rest is ready
};

std::string policy_key(const FileAccessPolicy& p) {
    std::string key = p.label + "\n";
    for (const auto& r : p.read) key += "r " + r.string() + "\n";
    for (const auto& w : p.read_write) key += "w " + w.string() + "\n";
    return key;
}

}  // namespace

void run_confined(const FileAccessPolicy& policy, const std::function<void()>& task, bool* confined) {
    static std::mutex mutex;
    static std::map<std::string, std::unique_ptr<ConfinedThread>>* threads =
        new std::map<std::string, std::unique_ptr<ConfinedThread>>();  // never destroyed: used until exit
    ConfinedThread* thread = nullptr;
    {
        std::lock_guard lock(mutex);
        auto& slot = (*threads)[policy_key(policy)];
        if (!slot) slot = std::make_unique<ConfinedThread>(policy);
        thread = slot.get();
    }
    if (confined) *confined = thread->confined();
    thread->run(task);
}

// ---- summary --------------------------------------------------------------------------------------------

std::vector<std::string> sandbox_summary(const SandboxSupport& s) {
    std::vector<std::string> lines;
    if (s.seccomp_notify) {
        lines.push_back(
            "kernel code (CPU backend) runs in a worker process that cannot start programs, open "
            "network sockets, open, create, change or delete files, or signal other processes; "
            "attempts are refused and reported");
    } else {
        lines.push_back(
            "kernel code (CPU backend) runs in a worker process that cannot start programs, open network "
            "sockets, write, create or delete files, or signal other processes; but this Linux kernel (" +
            s.kernel_release +
            ") lacks seccomp user notification (5.9+): such attempts just fail, "
            "unreported, and file reads are confined only by Landlock");
    }
    if (s.landlock_abi > 0 && s.seccomp_notify) {
        lines.push_back("Landlock ABI " + std::to_string(s.landlock_abi) +
                        ": the worker can open no file by path; the compilers (NVRTC, the host compiler) can read only "
                        "the toolkit, the system's compiler folders and a private copy of the kernel's own headers");
    } else {
        lines.push_back(
            "NOT CONFINED: no Landlock in this Linux kernel, so the compilers can read any file this user "
            "can when a kernel names it in a computed #include or an assembler .incbin (plain #include "
            "\"...\" outside the kernel's folder is still refused)");
    }
    return lines;
}

}  // namespace cp
