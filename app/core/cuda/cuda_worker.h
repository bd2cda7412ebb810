// The CUDA backend in a worker process, which is what make_cuda_backend() returns. CUDA cannot recover
// from a sticky error (illegal address, device assert...) inside a process, so requests travel over a
// socket to a child process that runs CudaBackend; after such an error, a crash, or a launch that outlives
// its watchdog, the child is replaced and the app carries on with a fresh GPU context.
//
// The child is this same executable started with CP_CUDA_WORKER set (core/worker/worker_process.h):
// cuda_worker.cpp serves requests from a static initialiser before main() runs.
#pragma once

#include "core/engine/backend.h"
#include "core/worker/worker_process.h"

#include <optional>
#include <string>
#include <sys/types.h>

namespace cp {

class CudaWorkerBackend final : public Backend {
public:
    // Starts the first worker; Error (the worker's plain-words reason) when CUDA is unusable here.
    // `device`: the CUDA ordinal the worker opens (and every worker that replaces it).
    static Result<std::unique_ptr<Backend>> create(int device = 0);
    // The same, with every worker started under compute-sanitizer (`tool`), which writes its findings to
    // `log` as the worker ends (core/session/sanitize.h).
    static Result<std::unique_ptr<Backend>> create_under_sanitizer(const std::string& tool, const std::string& log);
    ~CudaWorkerBackend() override;

    InfoResult info() override;
    CompileResult compile(const CompileRequest& request) override;
    AllocateResult allocate(const AllocateRequest& request) override;
    UploadResult upload(const UploadRequest& request) override;
    LaunchResult launch(const LaunchRequest& request) override;
    ReadBackResult read_back(const ReadBackRequest& request) override;
    ReleaseResult release(const ReleaseRequest& request) override;
    OccupancyResult occupancy(const OccupancyRequest& request) override;
    StreamsResult streams(const StreamsRequest& request) override;

    // The worker's process id (-1 when none is running): for tests of the replacement.
    pid_t worker_pid() const { return worker_.pid(); }

private:
    CudaWorkerBackend() = default;
    std::optional<Error> start_worker();
    // Sends one request and waits up to `timeout_s` for its response; a lost worker becomes an error response.
    Response call(const Request& request, int timeout_s, const std::string& subject);

    WorkerProcess worker_;
    uint64_t generation_ = 0;
    std::optional<DeviceInfo> info_;  // the same device for every worker: measured once
    std::string sanitize_tool_, sanitize_log_;  // set: workers start under compute-sanitizer
    int device_ = 0;                            // the CUDA ordinal each worker opens
};

}  // namespace cp
