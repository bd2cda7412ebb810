// The engine: the one door to a backend. Requests are plain values (engine_api.h) answered in the calling thread;
// calls from several threads (the window's runner, a split's per-device threads) take turns.
#pragma once

#include "core/engine/backend.h"
#include "core/engine/engine_api.h"

#include <memory>
#include <mutex>

namespace cp {

class Engine {
public:
    explicit Engine(std::unique_ptr<Backend> backend);
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    // The device and the backend's capabilities, asked once when the engine starts.
    const DeviceInfo& device() const { return device_; }
    const BackendCapabilities& capabilities() const { return device_.caps; }

    // The request's response (of the type that answers it), from the backend, in this thread. Each backend does
    // its own waiting (the CUDA and CPU workers are processes): a thread of the engine's own only added two
    // hand-overs to every request.
    Response call(const Request& request);

    InfoResult info() { return call<InfoResult>(InfoRequest{}); }
    CompileResult compile(CompileRequest r) { return call<CompileResult>(std::move(r)); }
    AllocateResult allocate(AllocateRequest r) { return call<AllocateResult>(std::move(r)); }
    UploadResult upload(UploadRequest r) { return call<UploadResult>(std::move(r)); }
    LaunchResult launch(LaunchRequest r) { return call<LaunchResult>(std::move(r)); }
    ReadBackResult read_back(ReadBackRequest r) { return call<ReadBackResult>(std::move(r)); }
    ReleaseResult release(ReleaseRequest r) { return call<ReleaseResult>(std::move(r)); }
    OccupancyResult occupancy(OccupancyRequest r) { return call<OccupancyResult>(std::move(r)); }
    StreamsResult streams(StreamsRequest r) { return call<StreamsResult>(std::move(r)); }

private:
    template <class R>
    R call(Request r) {
        return std::get<R>(call(static_cast<const Request&>(r)));
    }

    std::mutex mutex_;  // one request at a time
    std::unique_ptr<Backend> backend_;
    DeviceInfo device_;
};

}  // namespace cp
