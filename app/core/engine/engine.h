// The engine: executes requests on one worker thread that owns the backend (and so its CUDA context).
// Callers get futures; every request/response is a plain value (see engine_api.h).
#pragma once

#include "core/engine/backend.h"
#include "core/engine/engine_api.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

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

    std::future<Response> submit(Request request);

    // Blocking conveniences over submit().
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
        return std::get<R>(submit(std::move(r)).get());
    }
    void worker_loop();

    std::unique_ptr<Backend> backend_;
    DeviceInfo device_;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<std::pair<Request, std::promise<Response>>> queue_;
    bool stopping_ = false;
    std::thread worker_;
};

}  // namespace cp
