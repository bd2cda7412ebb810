// One try at making the window's engine on a thread of its own: reaching a server that could not be reached
// when the window started (ssh's login, Slurm's queue, the first question about its device) takes seconds, and
// the UI thread never waits for it.
#pragma once

#include "core/engine/backend.h"
#include "core/engine/engine.h"
#include "core/remote/remote_backend.h"
#include "core/result.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace cp::ui {

// An engine made by an attempt, and its backend's remote options (remote_options_of) when it is remote.
struct AttemptedEngine {
    std::unique_ptr<Engine> engine;
    std::optional<RemoteOptions> remote;
};

class BackendAttempt {
public:
    using Factory = std::function<Result<std::unique_ptr<Backend>>()>;

    // Runs `factory` and makes the engine (which asks the backend for its device) on a thread of its own;
    // `on_done` is called there when that is over (to wake the UI's wait).
    BackendAttempt(Factory factory, std::function<void()> on_done);
    // Joins the thread: one still connecting to a server must be closed first (close_remote_links()), or this
    // waits for its start timeout.
    ~BackendAttempt();
    BackendAttempt(const BackendAttempt&) = delete;
    BackendAttempt& operator=(const BackendAttempt&) = delete;

    bool done() const { return done_; }
    // The answer once done (taken once), else nullopt.
    std::optional<Result<AttemptedEngine>> take();

private:
    std::mutex mutex_;
    std::optional<Result<AttemptedEngine>> result_;
    std::atomic<bool> done_{false};
    std::thread thread_;
};

}  // namespace cp::ui
