// The CUDA backend in a worker process, which is what make_cuda_backend() returns. CUDA cannot recover
// from a sticky error (illegal address, device assert...) inside a process, so requests travel over a
// socket to a child process that runs CudaBackend; after such an error, a crash, or a launch that outlives
// its watchdog, the child is replaced and the app carries on with a fresh GPU context.
//
// The child is this same executable (/proc/self/exe) started with CP_CUDA_WORKER set: cuda_worker.cpp
// serves requests from a static initialiser before main() runs, so every binary that links cp_core can
// be a worker without help from its main().
#pragma once

#include "core/engine/backend.h"

#include <optional>
#include <string>
#include <sys/types.h>

namespace cp {

class CudaWorkerBackend final : public Backend {
public:
    // Starts the first worker; Error (the worker's plain-words reason) when CUDA is unusable here.
    static Result<std::unique_ptr<Backend>> create();
    ~CudaWorkerBackend() override;

    InfoResult info() override;
    CompileResult compile(const CompileRequest& request) override;
    AllocateResult allocate(const AllocateRequest& request) override;
    UploadResult upload(const UploadRequest& request) override;
    LaunchResult launch(const LaunchRequest& request) override;
    ReadBackResult read_back(const ReadBackRequest& request) override;
    ReleaseResult release(const ReleaseRequest& request) override;
    OccupancyResult occupancy(const OccupancyRequest& request) override;

    // The worker's process id (-1 when none is running): for tests of the replacement.
    pid_t worker_pid() const { return pid_; }

private:
    CudaWorkerBackend() = default;
    std::optional<Error> start_worker();
    void stop_worker(bool kill_now);
    // Sends one request and waits up to `timeout_s` for its response; a lost worker becomes an error response.
    Response call(const Request& request, int timeout_s, const std::string& subject);

    pid_t pid_ = -1;
    int fd_ = -1;
    uint64_t generation_ = 0;
    bool sanitizing_ = false;  // the worker runs under compute-sanitizer (run --sanitize)
    std::optional<DeviceInfo> info_;  // the same device for every worker: measured once
};

}  // namespace cp
