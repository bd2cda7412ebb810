// The CUDA worker process: the app side (spawn, forward, watchdog, replace) and the worker side (a loop
// serving requests with an in-process CudaBackend, entered from a static initialiser before main()).
#include "core/cuda/cuda_worker.h"

#include "core/cuda/cuda_backend.h"
#include "core/cuda/cuda_backend_factory.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/engine/engine_wire.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

extern char** environ;

namespace cp {

namespace {

constexpr const char* kWorkerEnv = "CP_CUDA_WORKER";
constexpr int kWorkerFd = 3;
constexpr int kStartTimeoutS = 120;
constexpr int kCompileTimeoutS = 300;
constexpr int kDefaultLaunchTimeoutS = 30;
constexpr int kTransferTimeoutS = 300;

int launch_timeout_s() {
    if (const char* v = std::getenv("CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S"); v && std::atoi(v) > 0) return std::atoi(v);
    return kDefaultLaunchTimeoutS;
}

// ---- worker side ----------------------------------------------------------------------------------------

int serve(int fd, uint64_t id_base) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the app, even inside a kernel that does not end
    std::string why, detail;
    nlohmann::json hello = {{"ok", false}, {"message", ""}, {"hint", ""}};
    std::unique_ptr<CudaBackend> backend;
    if (const CudaDriver* driver = cuda_driver(&why, &detail)) {
        auto created = CudaBackend::create(*driver);
        if (created) backend = std::move(*created);
        else hello.update({{"message", created.error().message}, {"hint", created.error().hint}});
    } else {
        hello.update({{"message", why + ": the CUDA backend is unavailable; use --backend cpu"}, {"hint", detail}});
    }
    hello["ok"] = backend != nullptr;
    if (!write_message(fd, WireMessage{hello.dump(), {}}) || !backend) return 1;
    backend->run_as_worker(id_base);
    // The precompiled header for <cooperative_groups.h> is made while the user looks at the first kernel, so
    // a kernel that includes it later compiles without parsing it. Detached: the worker ends with _Exit.
    if (const char* off = std::getenv("CUDA_PLAYGROUND_NO_PCH"); !(off && *off && std::string(off) != "0"))
        std::thread([arch = backend->arch()] { warm_up_nvrtc_pch(arch); }).detach();

    for (;;) {
        WireMessage in;
        if (read_message(fd, -1, &in) != ReadStatus::Ok) return 0;  // the app closed the connection
        std::optional<Request> request = decode_request(std::move(in));
        if (!request) return 2;
        const Response response = dispatch_request(*backend, *request);
        if (!write_message(fd, encode_response(response))) return 0;
        // The answer said the context was reset: this process cannot use CUDA any more, so it ends and
        // the app starts the next worker.
        if (backend->lost()) return 0;
    }
}

// Runs before main() in every process that links this file; only a worker (CP_CUDA_WORKER set) stops here.
[[maybe_unused]] const bool g_is_worker = [] {
    const char* spec = std::getenv(kWorkerEnv);
    if (!spec) return false;
    int fd = -1;
    unsigned long long id_base = 0;
    if (std::sscanf(spec, "%d,%llu", &fd, &id_base) != 2) std::_Exit(3);
    unsetenv(kWorkerEnv);
    std::_Exit(serve(fd, id_base));
}();

// ---- app side -------------------------------------------------------------------------------------------

std::optional<EngineError> error_of(const Response& r) {
    return std::visit(
        [](const auto& x) -> std::optional<EngineError> {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, InfoResult> || std::is_same_v<T, ReleaseResult>) return std::nullopt;
            else return x.error;
        },
        r);
}

// The response of the request's type that carries `error`.
Response failed_response(const Request& request, const EngineError& error, const std::optional<DeviceInfo>& info) {
    switch (request.index()) {
        case 0: {
            InfoResult r;
            if (info) r.device = *info;
            r.device.notes = error.message;
            return r;
        }
        case 1: {
            CompileResult r;
            r.error = error;
            return r;
        }
        case 2: return AllocateResult{0, 0, error, {}};
        case 3: return UploadResult{error};
        case 4: {
            LaunchResult r;
            r.error = error;
            return r;
        }
        case 5: return ReadBackResult{{}, error};
        case 6: return ReleaseResult{};
        default: {
            OccupancyResult r;
            r.error = error;
            return r;
        }
    }
}

std::string exit_text(int status) {
    if (WIFSIGNALED(status)) return std::string("killed by signal ") + strsignal(WTERMSIG(status));
    if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
    return "status " + std::to_string(status);
}

}  // namespace

Result<std::unique_ptr<Backend>> make_cuda_backend() {
    // Answer "no driver" without starting a process (dlopen only; CUDA is never initialised here).
    std::string why, detail;
    if (!cuda_driver(&why, &detail)) return make_error(why + ": the CUDA backend is unavailable; use --backend cpu", detail);
    if (const char* v = std::getenv("CUDA_PLAYGROUND_CUDA_IN_PROCESS"); v && *v && std::string(v) != "0")
        return make_cuda_backend_in_process();
    return CudaWorkerBackend::create();
}

Result<std::unique_ptr<Backend>> CudaWorkerBackend::create() {
    std::unique_ptr<CudaWorkerBackend> backend(new CudaWorkerBackend());
    if (auto e = backend->start_worker()) return *e;
    return std::unique_ptr<Backend>(std::move(backend));
}

CudaWorkerBackend::~CudaWorkerBackend() { stop_worker(false); }

std::optional<Error> CudaWorkerBackend::start_worker() {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return make_error(std::string("could not start the CUDA worker: socketpair failed: ") + std::strerror(errno));
    // dup2(fd, fd) would keep close-on-exec set, so the child's end must not already be fd 3.
    if (sv[1] == kWorkerFd) {
        const int moved = fcntl(sv[1], F_DUPFD_CLOEXEC, kWorkerFd + 1);
        close(sv[1]);
        sv[1] = moved;
    }
    ++generation_;
    const std::string spec = std::string(kWorkerEnv) + "=" + std::to_string(kWorkerFd) + "," +
                             std::to_string(generation_ << 40);
    std::vector<char*> env;
    for (char** e = environ; e && *e; ++e)
        if (std::strncmp(*e, kWorkerEnv, std::strlen(kWorkerEnv)) != 0) env.push_back(*e);
    env.push_back(const_cast<char*>(spec.c_str()));
    env.push_back(nullptr);
    char arg0[] = "cuda-playground-cuda-worker";
    char* argv[] = {arg0, nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, sv[1], kWorkerFd);
    const int rc = posix_spawn(&pid_, "/proc/self/exe", &actions, nullptr, argv, env.data());
    posix_spawn_file_actions_destroy(&actions);
    close(sv[1]);
    if (rc != 0) {
        close(sv[0]);
        pid_ = -1;
        return make_error(std::string("could not start the CUDA worker process: ") + std::strerror(rc));
    }
    fd_ = sv[0];

    WireMessage hello;
    const ReadStatus s = read_message(fd_, kStartTimeoutS * 1000, &hello);
    std::optional<Error> failure;
    try {
        if (s != ReadStatus::Ok) {
            failure = make_error(s == ReadStatus::TimedOut ? "the CUDA worker process did not start in time"
                                                           : "the CUDA worker process ended while starting");
        } else {
            const auto j = nlohmann::json::parse(hello.json);
            if (!j.at("ok").get<bool>())
                failure = make_error(j.at("message").get<std::string>(), j.at("hint").get<std::string>());
        }
    } catch (const std::exception& e) {
        failure = make_error(std::string("the CUDA worker process answered nonsense: ") + e.what());
    }
    if (failure) stop_worker(true);
    return failure;
}

void CudaWorkerBackend::stop_worker(bool kill_now) {
    if (fd_ >= 0) close(fd_);  // the worker sees the end of its input and exits
    fd_ = -1;
    if (pid_ <= 0) return;
    int status = 0;
    if (kill_now) kill(pid_, SIGKILL);
    // Give a worker that is finishing cleanly two seconds before killing it.
    for (int waited_ms = 0; waitpid(pid_, &status, WNOHANG) == 0; waited_ms += 10) {
        if (waited_ms >= 2000) {
            kill(pid_, SIGKILL);
            waitpid(pid_, &status, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    pid_ = -1;
}

Response CudaWorkerBackend::call(const Request& request, int timeout_s, const std::string& subject) {
    if (pid_ <= 0) {
        if (auto e = start_worker())
            return failed_response(request, EngineError{"worker unavailable", "the CUDA worker could not be restarted: " +
                                                        e->message, e->hint, false}, info_);
    }
    WireMessage answer;
    ReadStatus s = ReadStatus::Closed;
    if (write_message(fd_, encode_request(request))) s = read_message(fd_, timeout_s * 1000, &answer);
    if (s == ReadStatus::Ok) {
        if (std::optional<Response> response = decode_response(std::move(answer))) {
            const auto error = error_of(*response);
            if (error && error->context_was_reset) stop_worker(false);  // it is ending: start afresh next time
            return std::move(*response);
        }
    }
    // The worker hung or died: its GPU context and every buffer go with it.
    EngineError e;
    e.context_was_reset = true;
    if (s == ReadStatus::TimedOut) {
        stop_worker(true);
        e.name = "timeout";
        e.message = subject + " did not finish within " + std::to_string(timeout_s) +
                    " s and was stopped. All buffers were lost; the GPU context was reset.";
        e.hint = request.index() == 4
                     ? "look for a loop that never ends, or __syncthreads() inside a branch that some threads skip; "
                       "set CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S to allow longer launches"
                     : "";
    } else {
        int status = 0;
        const pid_t pid = pid_;
        if (fd_ >= 0) close(fd_);
        fd_ = -1;
        const bool reaped = pid > 0 && waitpid(pid, &status, 0) == pid;
        pid_ = -1;
        e.name = "worker stopped";
        e.message = "the CUDA worker process stopped unexpectedly during " + subject + " (" +
                    (reaped ? exit_text(status) : std::string("unknown status")) +
                    "). All buffers were lost; the next request starts a new GPU context.";
    }
    return failed_response(request, e, info_);
}

InfoResult CudaWorkerBackend::info() {
    if (info_) return InfoResult{*info_};
    InfoResult r = std::get<InfoResult>(call(InfoRequest{}, kStartTimeoutS, "measuring the device"));
    r.device.caps.buffers_by_ipc = true;  // the worker's addresses mean nothing in this process; its IPC handles do
    if (!r.device.name.empty()) info_ = r.device;
    return r;
}

CompileResult CudaWorkerBackend::compile(const CompileRequest& request) {
    return std::get<CompileResult>(call(request, kCompileTimeoutS, "compiling `" + request.kernel_name + "`"));
}

AllocateResult CudaWorkerBackend::allocate(const AllocateRequest& request) {
    AllocateResult r = std::get<AllocateResult>(call(request, kTransferTimeoutS, "allocating `" + request.name + "`"));
    r.device_address = 0;  // an address in the worker process means nothing here
    return r;
}

UploadResult CudaWorkerBackend::upload(const UploadRequest& request) {
    return std::get<UploadResult>(call(request, kTransferTimeoutS, "an upload"));
}

LaunchResult CudaWorkerBackend::launch(const LaunchRequest& request) {
    const std::string subject = "kernel `" + request.kernel_name + "` (grid " + request.grid.str() + ", block " +
                                request.block.str() + ")";
    return std::get<LaunchResult>(call(request, launch_timeout_s(), subject));
}

ReadBackResult CudaWorkerBackend::read_back(const ReadBackRequest& request) {
    return std::get<ReadBackResult>(call(request, kTransferTimeoutS, "a read-back"));
}

ReleaseResult CudaWorkerBackend::release(const ReleaseRequest& request) {
    if (pid_ <= 0) return {};  // nothing to release in a worker that is gone
    return std::get<ReleaseResult>(call(request, kTransferTimeoutS, "a release"));
}

OccupancyResult CudaWorkerBackend::occupancy(const OccupancyRequest& request) {
    return std::get<OccupancyResult>(call(request, kTransferTimeoutS, "the occupancy query for `" + request.kernel_name + "`"));
}

}  // namespace cp
