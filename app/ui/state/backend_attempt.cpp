// BackendAttempt: an engine made off the UI thread.
#include "ui/state/backend_attempt.h"

namespace cp::ui {

BackendAttempt::BackendAttempt(Factory factory, std::function<void()> on_done) {
    thread_ = std::thread([this, factory = std::move(factory), on_done = std::move(on_done)] {
        std::optional<Result<AttemptedEngine>> answer;
        if (Result<std::unique_ptr<Backend>> made = factory(); !made) {
            answer.emplace(made.error());
        } else {
            AttemptedEngine e;
            e.remote = remote_options_of(**made);
            e.engine = std::make_unique<Engine>(std::move(*made));  // asks the device here, not on the UI thread
            answer.emplace(std::move(e));
        }
        {
            std::lock_guard lock(mutex_);
            result_ = std::move(answer);
        }
        done_ = true;
        if (on_done) on_done();
    });
}

BackendAttempt::~BackendAttempt() {
    if (thread_.joinable()) thread_.join();
}

std::optional<Result<AttemptedEngine>> BackendAttempt::take() {
    std::lock_guard lock(mutex_);
    std::optional<Result<AttemptedEngine>> out = std::move(result_);
    result_.reset();
    return out;
}

}  // namespace cp::ui
