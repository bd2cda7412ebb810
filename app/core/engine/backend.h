// The seam between the engine and what executes kernels (CUDA: driver API on NVRTC cubins, in a worker
// process; CPU: the same source compiled by the host compiler against a shim, run with fibers), and the one
// registry of backends that the command line, `info`, the window, the JSON and the docs all read.
#pragma once

#include "core/engine/engine_api.h"
#include "core/result.h"

#include <functional>
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

// One entry of the registry. Adding a backend: its own folder under core/, and one line in backend_registry.cpp.
struct BackendEntry {
    std::string name;         // what --backend takes and what `info`, the JSON and the window print
    std::string description;  // one line for `info`, --help and the Device panel
    // Makes the backend on device `device` (an ordinal, 0 first) of this kind, or an Error saying plainly why it
    // cannot be used here (no driver, no compiler, no such device...).
    std::function<Result<std::unique_ptr<Backend>>(int device)> factory;
    Result<std::unique_ptr<Backend>> make(int device = 0) const { return factory(device); }
};

// In order of preference: `--backend auto` takes the first that can be made.
const std::vector<BackendEntry>& backend_registry();
const BackendEntry* find_backend(const std::string& name);
// "auto, cuda or cpu": the names --backend accepts, for help texts and messages.
std::string backend_choices_text();

// "auto" or a registry name; an Error naming the choices for anything else.
Result<std::string> check_backend_name(const std::string& name);

struct MadeBackend {
    std::unique_ptr<Backend> backend;
    // For "auto": each backend earlier in the registry that was passed over, and its Error ("no NVIDIA driver...").
    std::vector<std::pair<std::string, Error>> passed_over;
};
// `name` is "auto" or a registry name; `device` the ordinal of the device among that backend's (DeviceInfo::
// ordinal, ::device_count). For "auto", the Error lists why every backend failed.
Result<MadeBackend> make_backend(const std::string& name, int device = 0);

// A backend that only compiles (NVRTC for the default architecture) and says `why` when asked to run: what
// the window uses when no backend can run kernels here, so the editor still gets diagnostics.
std::unique_ptr<Backend> make_compile_only_backend(std::string why);

}  // namespace cp
