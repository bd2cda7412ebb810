// The seam between the engine and what executes kernels: CUDA (driver API on NVRTC cubins) or the CPU
// (the same source compiled by the host compiler against a shim, run with fibers).
#pragma once

#include "core/engine/engine_api.h"
#include "core/result.h"

#include <memory>
#include <optional>
#include <string>

namespace cp {

class Backend {
public:
    virtual ~Backend() = default;
    virtual BackendKind kind() const = 0;
    virtual InfoResult info() = 0;
    virtual CompileResult compile(const CompileRequest& request) = 0;
    virtual AllocateResult allocate(const AllocateRequest& request) = 0;
    virtual UploadResult upload(const UploadRequest& request) = 0;
    virtual LaunchResult launch(const LaunchRequest& request) = 0;
    virtual ReadBackResult read_back(const ReadBackRequest& request) = 0;
    virtual ReleaseResult release(const ReleaseRequest& request) = 0;
    // Default: an error saying this backend has no occupancy API (callers fall back to an estimate).
    virtual OccupancyResult occupancy(const OccupancyRequest& request);
};

// Hands one request to the matching member of `backend`: the one place that maps requests to calls, used by
// the engine's worker thread and by the CUDA worker process alike.
Response dispatch_request(Backend& backend, const Request& request);

// Each returns an Error saying plainly why the backend cannot be used here (no driver, no device...).
Result<std::unique_ptr<Backend>> make_cuda_backend();
Result<std::unique_ptr<Backend>> make_cpu_backend();

enum class BackendChoice { Auto, Cuda, Cpu };
// "auto" | "cuda" | "cpu"; nullopt for anything else.
std::optional<BackendChoice> backend_choice_from_name(const std::string& name);
// Auto: CUDA when a device is present, else CPU. `why_not_cuda` receives the reason CUDA was skipped.
Result<std::unique_ptr<Backend>> make_backend(BackendChoice choice, std::string* why_not_cuda = nullptr);

}  // namespace cp
