// The window's remote link (--remote): the server's command and whether it answers (RemoteLink: why it was
// lost, when to try again), what a run's answer says of it, the attempts to make the backend when the server
// could not be reached at start, and the link Sanitize opens to the same server. Plain state on the UI
// thread (no ImGui); the attempts run on a thread of their own (BackendAttempt) and the runs on the runner's.
#pragma once

#include "core/engine/backend.h"
#include "core/result.h"
#include "core/session/run_report.h"
#include "core/session/sanitize.h"
#include "ui/state/backend_attempt.h"
#include "ui/state/console_log.h"
#include "ui/state/remote_link.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace cp::ui {

class ServerConnection {
public:
    using Factory = BackendAttempt::Factory;

    explicit ServerConnection(ConsoleLog& console) : console_(console) {}
    ~ServerConnection();  // closes the links (close()) first
    ServerConnection(const ServerConnection&) = delete;
    ServerConnection& operator=(const ServerConnection&) = delete;

    // The factory that makes the backend (kept for the attempts), wrapped so that the remote options of the
    // backend it makes are kept too (Sanitize's link is made of them). Empty in, empty out.
    Factory keep_factory(Factory factory);
    // After the first try at making the backend: `prefix` is the server's command (empty: kernels run here);
    // `unreached` the WorkerLost error of a server that could not be reached, which the attempts then retry.
    void begin(std::string prefix, const std::optional<Error>& unreached);

    const RemoteLink& link() const { return link_; }
    RemoteLink& link() { return link_; }
    bool remote() const { return link_.remote(); }
    // The server has never answered: the window compiles only (nothing is sent) until an attempt reaches it.
    bool never_connected() const { return never_connected_; }
    // An attempt has finished and waits to be taken by poll().
    bool attempt_done() const { return attempt_ && attempt_->done(); }

    // A run's answer: lost (WorkerLost outside the check, which runs here), back, or an attempt that stopped
    // before it asked the server. Nothing for a local backend.
    void note(const RunReport& r, double now);
    // Never connected: starts an attempt when one is due, and takes its answer when it came; returns the
    // engine of an attempt that reached a server able to run kernels (the link is then up).
    std::optional<AttemptedEngine> poll(double now, std::function<void()> on_done);

    // Tests: the backend sanitize runs use instead of the CUDA worker under compute-sanitizer.
    void set_test_sanitizer(SanitizedBackendFactory factory) { test_sanitizer_ = std::move(factory); }
    // What a runner's Sanitize uses: a test's backend, else over --remote a second link to the same server
    // (`worker --stdio --sanitize TOOL`); empty: the session's own (the local CUDA worker).
    SanitizedBackendFactory sanitized_factory() const;

    // The links end now: a server that stopped answering must not hold the window open for a request's time
    // limit (minutes); the runner's (or an attempt's) blocked request returns at once.
    void close();

private:
    ConsoleLog& console_;
    RemoteLink link_;
    Factory factory_;
    std::optional<RemoteOptions> remote_options_;
    SanitizedBackendFactory test_sanitizer_;
    bool never_connected_ = false;
    std::unique_ptr<BackendAttempt> attempt_;
};

}  // namespace cp::ui
