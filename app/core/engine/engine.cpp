// Engine: requests handed to the backend one at a time, in the caller's thread.
#include "core/engine/engine.h"

namespace cp {

Engine::Engine(std::unique_ptr<Backend> backend) : backend_(std::move(backend)), device_(backend_->info().device) {}

Engine::~Engine() {
    std::lock_guard lock(mutex_);  // a call still in another thread finishes first
    backend_.reset();
}

Response Engine::call(const Request& request) {
    std::lock_guard lock(mutex_);
    return dispatch_request(*backend_, request);
}

}  // namespace cp
