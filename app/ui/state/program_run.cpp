// ProgramRunState (program_run.h).
#include "ui/state/program_run.h"

#include "core/backends/registry.h"

namespace cp::ui {

ProgramRunState::~ProgramRunState() {
    if (thread_.joinable()) thread_.join();
}

bool ProgramRunState::running() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return running_;
}

void ProgramRunState::start(std::string source, std::string path, uint64_t revision, std::function<void()> wake) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (running_) return;
        running_ = true;
    }
    if (thread_.joinable()) thread_.join();  // the last run's thread, already done
    started_path_ = path;
    started_revision_ = revision;
    thread_ = std::thread([this, source = std::move(source), path = std::move(path), revision, wake = std::move(wake)] {
        ProgramRun run;
        if (!runner_ && !unavailable_) {
            auto made = make_program_runner("auto");
            if (made) runner_ = std::move(made->runner);
            else unavailable_ = made.error();
        }
        if (runner_) {
            ProgramRequest request;
            request.source = source;
            request.path = path;
            run = runner_->run(request);
        } else {
            run.error = engine_error(unavailable_->kind, "NO_PROGRAM_RUNNER", unavailable_->message, unavailable_->hint);
        }
        {
            std::lock_guard<std::mutex> lock(mutex_);
            finished_ = std::move(run);
            running_path_ = path;
            running_revision_ = revision;
            running_ = false;
        }
        if (wake) wake();
    });
}

std::optional<ProgramRun> ProgramRunState::take_finished() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!finished_) return std::nullopt;
    std::optional<ProgramRun> out = std::move(finished_);
    finished_.reset();
    last_ = out;
    last_path_ = running_path_;
    last_revision_ = running_revision_;
    return out;
}

}  // namespace cp::ui
