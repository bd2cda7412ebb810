// The CUDA worker process: the app side (forward, watchdog, replace) and the worker side (a loop serving
// requests with an in-process CudaBackend, entered from a static initialiser before main()). Starting,
// calling and stopping the process: core/worker/worker_process.h.
#include "core/cuda/cuda_worker.h"
#include "core/clock.h"

#include "core/cuda/cuda_backend.h"
#include "core/cuda/cuda_backend_factory.h"
#include "core/toolkit/nvrtc_compiler.h"
#include "core/toolkit/nvrtc_pch.h"
#include "core/toolkit/sanitizer_report.h"
#include "core/engine/engine_wire.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <signal.h>
#include <sys/prctl.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace cp {

namespace {

constexpr const char* kWorkerEnv = "CP_CUDA_WORKER";
constexpr const char* kUseCpuInstead = ": the CUDA backend is unavailable; use --backend cpu";
constexpr int kStartTimeoutS = 120;
constexpr int kCompileTimeoutS = 300;
constexpr int kTransferTimeoutS = 300;

// No usable driver (cuda_driver's `why` and `detail`); `why` is also the reason (Error::reason).
Error no_driver(const std::string& why, const std::string& detail, const char* consequence = kUseCpuInstead) {
    Error e = make_error(ErrorKind::Unsupported, why + consequence, detail);
    e.reason = why;
    return e;
}

// ---- worker side ----------------------------------------------------------------------------------------

int serve(int fd, uint64_t id_base, int ordinal) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the app, even inside a kernel that does not end
    use_pch_dir_for_temporary_files();  // still one thread here (before main): NVRTC's PCH temporaries
    std::string why, detail;
    // The greeting says which wire protocol this binary speaks; the app refuses another build's worker. Its
    // "reason" is optional both ways (Error::reason; an app without it reads the message alone).
    nlohmann::json hello = {{"ok", false}, {"message", ""}, {"hint", ""},
                            {"kind", ""},  {"reason", ""},  {"protocol", kWireProtocolVersion}};
    std::unique_ptr<CudaBackend> backend;
    const CudaDriver* driver = cuda_driver(&why, &detail);
    Result<std::unique_ptr<CudaBackend>> created =
        driver ? CudaBackend::create(*driver, ordinal) : Result<std::unique_ptr<CudaBackend>>(no_driver(why, detail));
    if (created)
        backend = std::move(*created);
    else
        hello.update({{"message", created.error().message},
                      {"hint", created.error().hint},
                      {"kind", error_kind_name(created.error().kind)},
                      {"reason", created.error().reason}});
    hello["ok"] = backend != nullptr;
    if (!write_message(fd, WireMessage{hello.dump(), {}, {}}) || !backend) return 1;
    backend->run_as_worker(id_base);
    // No precompiled header is made ahead of time: NVRTC compiles one program at a time, so a warm-up in the
    // background made every new process's first compile wait ~1.5 s for it. The first kernel that includes a
    // heavy header makes the PCH as it compiles (pch_options), and the later ones use it.

    for (;;) {
        WireMessage in;
        if (read_message(fd, -1, &in) != ReadStatus::Ok) return 0;  // the app closed the connection
        Result<Request> request = decode_request(std::move(in));
        if (!request) return 2;  // the app's side reports the worker gone (it sent what this build cannot read)
        const auto started = std::chrono::steady_clock::now();
        Response response = dispatch_request(*backend, *request);
        if (auto* launched = std::get_if<LaunchResult>(&response))
            launched->backend_ms =
                ms_since(started);
        if (!write_message(fd, encode_response(response))) return 0;
        // The answer said the context was reset: this process cannot use CUDA any more, so it ends and
        // the app starts the next worker.
        if (backend->lost()) return 0;
    }
}

// Runs before main() in every process that links this file; only a worker (CP_CUDA_WORKER set) stops here.
[[maybe_unused]] const bool g_is_worker = [] {
    const std::optional<WorkerEntry> entry = take_worker_entry(kWorkerEnv);
    if (!entry) return false;
    // The spec is "<first id> <device ordinal>" (start_worker).
    unsigned long long id_base = 0;
    int ordinal = 0;
    if (std::sscanf(entry->spec.c_str(), "%llu %d", &id_base, &ordinal) != 2) std::_Exit(3);
    const int status = serve(entry->fd, id_base, ordinal);
    remove_pch_dir();  // _Exit runs no atexit handlers (a killed worker's folder is removed by the app)
    std::_Exit(status);
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

// Requests that run kernel code, whose time limit is the launch watchdog's.
bool runs_kernels(const Request& request) {
    return std::holds_alternative<LaunchRequest>(request) || std::holds_alternative<StreamsRequest>(request);
}

}  // namespace

Result<std::unique_ptr<Backend>> make_cuda_backend(int device) {
    // Answer "no driver" without starting a process (dlopen only; CUDA is never initialised here).
    std::string why, detail;
    if (!cuda_driver(&why, &detail)) return no_driver(why, detail);
    if (const char* v = std::getenv("CUDA_PLAYGROUND_CUDA_IN_PROCESS"); v && *v && std::string(v) != "0")
        return device == 0 ? make_cuda_backend_in_process()
                           : make_error(ErrorKind::UserInput,
                                        "CUDA_PLAYGROUND_CUDA_IN_PROCESS runs device 0 only, in this process",
                                        "unset it to open device " + std::to_string(device) + " in a worker process");
    return CudaWorkerBackend::create(device);
}

Result<std::unique_ptr<Backend>> CudaWorkerBackend::create(int device) {
    std::unique_ptr<CudaWorkerBackend> backend(new CudaWorkerBackend());
    backend->device_ = device;
    if (auto e = backend->start_worker()) return *e;
    return std::unique_ptr<Backend>(std::move(backend));
}

Result<std::unique_ptr<Backend>> CudaWorkerBackend::create_under_sanitizer(const std::string& tool, const std::string& log) {
    std::string why, detail;
    if (!cuda_driver(&why, &detail)) return no_driver(why, detail, ": the CUDA backend is unavailable");
    std::unique_ptr<CudaWorkerBackend> backend(new CudaWorkerBackend());
    backend->sanitize_tool_ = tool;
    backend->sanitize_log_ = log;
    if (auto e = backend->start_worker()) return *e;
    return std::unique_ptr<Backend>(std::move(backend));
}

Result<std::unique_ptr<Backend>> make_cuda_backend_under_sanitizer(const std::string& tool, const std::string& log) {
    return CudaWorkerBackend::create_under_sanitizer(tool, log);
}

CudaWorkerBackend::~CudaWorkerBackend() { worker_.stop(false); }

std::optional<Error> CudaWorkerBackend::start_worker() {
    ++generation_;
    WorkerSpawn spawn;
    spawn.env_name = kWorkerEnv;
    spawn.spec = std::to_string(generation_ << 40) + " " + std::to_string(device_);
    spawn.process_name = "cuda-playground-cuda-worker";
    // Under compute-sanitizer (run --sanitize, the window's Sanitize): the sanitizer starts the worker and
    // writes its findings to the log, which it finishes as the worker ends (hence the long grace). Guard zones
    // are off there: a write into a zone is inside the allocation, and memcheck would not see it.
    if (!sanitize_tool_.empty()) {
        const std::string sanitizer = find_compute_sanitizer();
        if (sanitizer.empty())
            return make_error(ErrorKind::Unsupported, "compute-sanitizer was not found", "see run --help (--sanitize)");
        spawn.wrapper = {sanitizer, "--tool", sanitize_tool_, "--log-file", sanitize_log_, "--show-backtrace", "no"};
        spawn.extra_env = {"CUDA_PLAYGROUND_GUARDS=0", "CUDA_PLAYGROUND_UNDER_SANITIZER=1"};
        spawn.stop_grace_ms = 60000;
    }
    if (auto e = worker_.start(spawn)) return e;
    worker_.remove_after_exit(pch_dir_of(worker_.pid()));  // its precompiled headers, however it ends

    const WorkerProcess::Reply hello = worker_.receive(kStartTimeoutS);
    std::optional<Error> failure;
    try {
        if (hello.outcome != WorkerProcess::Outcome::Answered) {
            failure = make_error(ErrorKind::WorkerLost,
                                 hello.outcome == WorkerProcess::Outcome::TimedOut
                                     ? "the CUDA worker process did not start in time"
                                     : "the CUDA worker process ended while starting (" + hello.ended_how + ")");
        } else {
            const auto j = nlohmann::json::parse(hello.message.json);
            // First the protocol: a worker from another build may not even word its greeting the same way.
            failure = check_worker_protocol(j.value("protocol", 0), "CUDA worker");
            if (!failure && !j.at("ok").get<bool>()) {
                failure = make_error(error_kind_from_name(j.at("kind").get<std::string>()).value_or(ErrorKind::Unknown),
                                     j.at("message").get<std::string>(), j.at("hint").get<std::string>());
                failure->reason = j.value("reason", std::string());
            }
        }
    } catch (const std::exception& e) {
        failure =
            make_error(ErrorKind::WorkerLost, std::string("the CUDA worker process answered nonsense: ") + e.what());
    }
    if (failure && !spawn.wrapper.empty())
        failure->message += " (it was started under compute-sanitizer; its log: " + sanitize_log_ + ")";
    if (failure) worker_.stop(true);
    return failure;
}

Response CudaWorkerBackend::call(const Request& request, int timeout_s, const std::string& subject) {
    if (!worker_.running()) {
        if (auto e = start_worker())
            return failed_response(request,
                                   engine_error(ErrorKind::WorkerLost, "worker unavailable",
                                                "the CUDA worker could not be restarted: " + e->message, e->hint),
                                   info_);
    }
    WorkerProcess::Reply reply = worker_.call(encode_request(request), timeout_s);
    if (reply.outcome == WorkerProcess::Outcome::Answered) {
        if (Result<Response> response = decode_response(std::move(reply.message))) {
            const auto error = error_of(*response);
            if (error && error->context_was_reset) {
                worker_.stop(false);  // it is ending: start afresh next time
                // A kernel faulted on the GPU: CUDA-GL interop is not to be trusted until the GPU is reset.
                if (error->kind == ErrorKind::Fault || error->kind == ErrorKind::OutOfBounds) remember_gpu_fault();
            }
            return std::move(*response);
        }
        worker_.stop(true);  // it answered nonsense: it cannot be trusted with the next request
        reply.ended_how = "it sent an answer that could not be read";  // the worker's fault, not the kernel's
    }
    // The worker hung or died: its GPU context and every buffer go with it.
    EngineError e;
    e.context_was_reset = true;
    if (reply.outcome == WorkerProcess::Outcome::TimedOut) {
        e.name = "timeout";
        e.kind = ErrorKind::Hang;
        e.message = subject + " did not finish within " + std::to_string(timeout_s) +
                    " s and was stopped. All buffers were lost; the GPU context was reset.";
        // CUDA stops a context without saying where its threads were; the CPU backend samples its threads.
        e.hint = runs_kernels(request)
                     ? "CUDA does not tell where a stopped kernel's threads were: run it on the CPU backend "
                       "(--backend cpu), which names the thread, block and line still running. Look for a loop that "
                       "never ends, or __syncthreads() inside a branch that some threads skip; set "
                       "CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S to allow longer launches"
                     : "";
    } else {
        e.name = "worker stopped";
        e.kind = ErrorKind::WorkerLost;
        e.message = "the CUDA worker process stopped unexpectedly during " + subject + " (" + reply.ended_how +
                    "). All buffers were lost; the next request starts a new GPU context.";
    }
    return failed_response(request, e, info_);
}

InfoResult CudaWorkerBackend::info() {
    if (info_) return InfoResult{*info_};
    InfoResult r = std::get<InfoResult>(call(InfoRequest{}, kStartTimeoutS, "measuring the device"));
    r.device.caps.buffers_by_ipc = true;  // the worker's addresses mean nothing in this process; its IPC handles do
    r.device.caps.sanitizer = !find_compute_sanitizer().empty();  // its workers can start under compute-sanitizer
    if (!r.device.name.empty()) info_ = r.device;
    return r;
}

CompileResult CudaWorkerBackend::compile(const CompileRequest& request) {
    return std::get<CompileResult>(call(request, kCompileTimeoutS, "compiling `" + request.kernel_name + "`"));
}

AllocateResult CudaWorkerBackend::allocate(const AllocateRequest& request) {
    AllocateResult r = std::get<AllocateResult>(call(request, kTransferTimeoutS, "allocating `" + request.name + "`"));
    // The worker's address is never dereferenced here (interop goes through the IPC handle); it stays in the
    // report to match compute-sanitizer's addresses with buffers.
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
    if (!worker_.running()) return {};  // nothing to release in a worker that is gone
    return std::get<ReleaseResult>(call(request, kTransferTimeoutS, "a release"));
}

StreamsResult CudaWorkerBackend::streams(const StreamsRequest& request) {
    const std::string subject = "kernel `" + request.kernel_name + "` in " + std::to_string(request.chunks.size()) +
                                " chunks on " + std::to_string(request.streams) + " streams";
    return std::get<StreamsResult>(call(request, launch_timeout_s(), subject));
}

OccupancyResult CudaWorkerBackend::occupancy(const OccupancyRequest& request) {
    return std::get<OccupancyResult>(call(request, kTransferTimeoutS, "the occupancy query for `" + request.kernel_name + "`"));
}

}  // namespace cp
