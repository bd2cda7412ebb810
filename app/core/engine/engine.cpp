// Engine: a FIFO of requests served by one worker thread that owns the backend.
#include "core/engine/engine.h"

namespace cp {

Engine::Engine(std::unique_ptr<Backend> backend)
    : backend_(std::move(backend)), device_(backend_->info().device), worker_([this] { worker_loop(); }) {}

Engine::~Engine() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    cv_.notify_all();
    worker_.join();
}

std::future<Response> Engine::submit(Request request) {
    std::promise<Response> promise;
    auto future = promise.get_future();
    {
        std::lock_guard lock(mutex_);
        queue_.emplace_back(std::move(request), std::move(promise));
    }
    cv_.notify_one();
    return future;
}

void Engine::worker_loop() {
    for (;;) {
        std::pair<Request, std::promise<Response>> item;
        {
            std::unique_lock lock(mutex_);
            cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) return;  // stopping and drained
            item = std::move(queue_.front());
            queue_.pop_front();
        }
        Response response = dispatch_request(*backend_, item.first);
        item.second.set_value(std::move(response));
    }
}

}  // namespace cp
