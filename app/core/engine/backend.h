// The seam between the engine and what executes kernels (CUDA: driver API on NVRTC cubins, in a worker
// process; CPU: the same source compiled by the host compiler against a shim, run with fibers). The one registry
// of backends, which the command line, `info`, the window, the JSON and the docs read, is a floor above the
// backends: core/backends/registry.h.
#pragma once

#include "core/engine/engine_api.h"
#include "core/result.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cp {

class Backend {
public:
    virtual ~Backend() = default;
    // The device, its limits and the backend's capabilities (DeviceInfo::backend is the registry name).
    virtual InfoResult info() = 0;
    virtual CompileResult compile(const CompileRequest& request) = 0;
    virtual AllocateResult allocate(const AllocateRequest& request) = 0;
    virtual UploadResult upload(const UploadRequest& request) = 0;
    virtual LaunchResult launch(const LaunchRequest& request) = 0;
    virtual ReadBackResult read_back(const ReadBackRequest& request) = 0;
    virtual ReleaseResult release(const ReleaseRequest& request) = 0;
    // Default: an error saying this backend has no occupancy API (callers fall back to an estimate).
    virtual OccupancyResult occupancy(const OccupancyRequest& request);
    // Default: an error saying this backend cannot run a launch split over streams.
    virtual StreamsResult streams(const StreamsRequest& request);
};

// Hands one request to the matching member of `backend`: the one place that maps requests to calls, used by
// the engine and by the CUDA worker process alike.
Response dispatch_request(Backend& backend, const Request& request);

// The response of `request`'s type that carries `error` (an info answer: `info` if known, with the error in
// its notes; a release has no error field): what a worker proxy answers when its worker is gone.
Response failed_response(const Request& request, const EngineError& error, const std::optional<DeviceInfo>& info);

}  // namespace cp
