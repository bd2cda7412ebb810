#include "ui/state/server_connection.h"

#include "core/remote/remote_backend.h"

#include <utility>

namespace cp::ui {

ServerConnection::~ServerConnection() { close(); }

void ServerConnection::close() {
    if (link_.remote()) close_remote_links();
    attempt_.reset();
}

ServerConnection::Factory ServerConnection::keep_factory(Factory factory) {
    factory_ = std::move(factory);
    if (!factory_) return {};
    return [this]() -> Result<std::unique_ptr<Backend>> {
        auto made = factory_();
        if (made) remote_options_ = remote_options_of(**made);
        return made;
    };
}

void ServerConnection::begin(std::string prefix, const std::optional<Error>& unreached) {
    link_ = RemoteLink(std::move(prefix));
    if (!unreached) return;
    never_connected_ = true;
    link_.failed(unreached->message, 0);
    console_.add(LogKind::Error, "Cannot reach the server `" + link_.prefix() + "`: " + unreached->full() +
                                     "\n  Your edits are kept; the window connects by itself (or press "
                                     "Reconnect) and runs the kernel once the server answers.");
}

void ServerConnection::note(const RunReport& r, double now) {
    if (!link_.remote()) return;
    // (The CPU reference runs here, not on the server: its failure says nothing of the link.)
    if (r.error && r.error->kind == ErrorKind::WorkerLost && r.failed_stage != RunStage::Verify) {
        const bool was_lost = link_.lost();
        link_.failed(r.error->message, now);
        if (!was_lost)
            console_.add(LogKind::Error, "Lost the server `" + link_.prefix() + "`: " + r.error->message +
                                             "\n  Your edits are kept; the window reconnects by itself (or press "
                                             "Reconnect) and runs the kernel again.");
        return;
    }
    // The server answered (the kernel compiled there, or ran): the link is up.
    if (r.compiled || r.launched) {
        if (link_.succeeded()) console_.add(LogKind::Info, "Reconnected to `" + link_.prefix() + "`; the kernel ran again.");
    } else if (link_.attempting()) {
        link_.failed(link_.why(), now);  // the attempt stopped before it asked the server (e.g. a bad input)
    }
}

std::optional<AttemptedEngine> ServerConnection::poll(double now, std::function<void()> on_done) {
    if (!never_connected_) return std::nullopt;
    if (attempt_) {
        if (!attempt_->done()) return std::nullopt;
        auto made = attempt_->take();
        attempt_.reset();  // its thread has returned
        if (made && *made && (*made)->engine->capabilities().launches) {
            never_connected_ = false;
            remote_options_ = std::move((*made)->remote);
            link_.succeeded();
            return std::move(**made);
        }
        // The same backoff as a link lost later: 1, 2, 4 ... 30 s.
        const std::string why = !made    ? "the attempt gave no answer"
                                : !*made ? made->error().message
                                         : (*made)->engine->device().notes;
        link_.failed(why, now);
        return std::nullopt;
    }
    if (!link_.attempt_due(now)) return std::nullopt;
    link_.attempt_started();
    attempt_ = std::make_unique<BackendAttempt>(factory_, std::move(on_done));
    return std::nullopt;
}

SanitizedBackendFactory ServerConnection::sanitized_factory() const {
    if (test_sanitizer_ || !remote_options_) return test_sanitizer_;
    return [remote = *remote_options_](const std::string& tool, const std::string& log) -> Result<std::unique_ptr<Backend>> {
        RemoteOptions o = remote;
        o.sanitize_tool = tool;
        o.sanitizer_log = log;  // the server's log lands here as the sanitized link closes
        return make_remote_backend(o);
    };
}

}  // namespace cp::ui
