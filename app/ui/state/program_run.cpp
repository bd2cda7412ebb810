// ProgramRunState (program_run.h).
#include "ui/state/program_run.h"

#include "core/backends/registry.h"
#include "core/session/program_lesson.h"
#include "core/session/script_host.h"

#include <algorithm>

namespace cp::ui {

ProgramRunState::~ProgramRunState() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void ProgramRunState::post(std::function<void()> job) {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back(std::move(job));
    if (!thread_.joinable()) thread_ = std::thread([this] { serve(); });
    cv_.notify_all();
}

void ProgramRunState::serve() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
        if (jobs_.empty()) return;  // stopping, nothing left
        std::function<void()> job = std::move(jobs_.front());
        jobs_.pop_front();
        busy_ = true;
        lock.unlock();
        job();
        lock.lock();
        busy_ = false;
        cv_.notify_all();
    }
}

void ProgramRunState::wait_idle() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this] { return jobs_.empty() && !busy_; });
}

bool ProgramRunState::running() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return running_;
}

void ProgramRunState::start(std::string source, std::string path, uint64_t revision, std::function<void()> wake,
                            std::map<size_t, ProgramLaunchChange> changes) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (running_) return;
        running_ = true;
    }
    started_path_ = path;
    started_revision_ = revision;
    post([this, source = std::move(source), path = std::move(path), revision, wake = std::move(wake),
          changes = std::move(changes)] {
        ProgramRequest request;
        request.source = source;
        request.path = path;
        request.capture_limit = kWindowCaptureLimit;  // each launch can be re-run from its buffers
        request.changes = changes;
        ProgramRun run = is_script_file(path) ? run_script_file(request) : run_program(request);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            running_request_ = std::move(request);
            finished_ = std::move(run);
            running_path_ = path;
            running_revision_ = revision;
            running_ = false;
        }
        if (wake) wake();
    });
}

ProgramRun ProgramRunState::run_program(const ProgramRequest& request) {
    if (!runner_ && !unavailable_) {
        auto made = make_program_runner(backend_);
        if (made) runner_ = std::move(made->runner);
        else unavailable_ = made.error();
    }
    if (runner_) return runner_->run(request);
    ProgramRun run;
    run.error = engine_error(unavailable_->kind, "NO_PROGRAM_RUNNER", unavailable_->message, unavailable_->hint);
    return run;
}

ProgramRun ProgramRunState::run_script_file(const ProgramRequest& request) {
    ScriptRequest script;
    script.path = request.path;
    script.source = request.source;  // the editor's text, saved or not
    script.backend = backend_;
    script.capture_limit = request.capture_limit;
    script.changes = request.changes;
    auto ran = run_script(script);
    if (ran) return std::move(ran->run);
    ProgramRun run;
    run.error = engine_error(ran.error().kind, "SCRIPT_NOT_RUN", ran.error().message, ran.error().hint);
    return run;
}

std::optional<ProgramRun> ProgramRunState::take_finished() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!finished_) return std::nullopt;
    // The capture (up to kWindowCaptureLimit) is kept once, in last_shared_; last_ and the caller get the rest.
    ProgramRun run = std::move(*finished_);
    finished_.reset();
    std::string capture = std::move(run.capture_data);
    run.capture_data.clear();
    std::optional<ProgramRun> out = run;
    last_ = run;
    run.capture_data = std::move(capture);
    last_shared_ = std::make_shared<const ProgramRun>(std::move(run));
    ++runs_taken_;
    last_request_ = running_request_;
    last_replay_.reset();
    if (!last_request_.changes.empty() && !last_->launches.empty())  // a changed run: stay on the changed launch
        selected = std::min(last_request_.changes.begin()->first, last_->launches.size() - 1);
    else selected = 0;
    last_path_ = running_path_;
    last_revision_ = running_revision_;
    return out;
}

void ProgramRunState::start_replay(size_t index, ReplayChanges changes, std::function<void()> wake) {
    if (!last_) return;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        replay_wake_ = std::move(wake);
        replay_waiting_ = Replayed{index, std::move(changes), {}};
        if (replay_running_) return;  // the replay in flight takes the waiting one next
        replay_running_ = true;
    }
    post([this] { replay_next(); });
}

void ProgramRunState::replay_next() {
    for (;;) {
        Replayed job;
        ProgramRequest request;
        std::shared_ptr<const ProgramRun> run;  // kept: a new program run may replace the last one meanwhile
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!replay_waiting_) {
                replay_running_ = false;
                return;
            }
            job = std::move(*replay_waiting_);
            replay_waiting_.reset();
            request = last_request_;
            run = last_shared_;
        }
        if (!replay_backend_ && !replay_unavailable_) {
            auto made = make_backend(backend_);
            if (made) replay_backend_ = std::move(made->backend);
            else replay_unavailable_ = made.error();
        }
        if (replay_backend_) {
            job.result = replay_launch(*replay_backend_, request, *run, job.index, job.changes);
        } else {
            job.result.error =
                engine_error(replay_unavailable_->kind, "NO_BACKEND", replay_unavailable_->message, replay_unavailable_->hint);
        }
        std::function<void()> wake;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            replay_done_ = std::move(job);
            wake = replay_wake_;
        }
        if (wake) wake();
    }
}

bool ProgramRunState::replaying() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return replay_running_;
}

bool ProgramRunState::take_replay() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!replay_done_) return false;
    last_replay_ = std::move(replay_done_);
    replay_done_.reset();
    ++replays_taken_;
    return true;
}

void ProgramRunState::start_debug(size_t index, uint64_t block, int32_t warp, std::function<void()> wake) {
    post([this, index, block, warp, wake = std::move(wake)] {
        ProgramRequest request;
        std::shared_ptr<const ProgramRun> run;  // kept: a new program run may replace the last one meanwhile
        {
            std::lock_guard<std::mutex> lock(mutex_);
            request = last_request_;
            run = last_shared_;
        }
        if (!debug_backend_ && !debug_unavailable_) {
            auto made = make_backend("cpu");
            if (made) debug_backend_ = std::move(made->backend);
            else debug_unavailable_ = made.error();
        }
        std::optional<Result<BlockDebugRun>> out;
        if (!run)
            out = make_error(ErrorKind::UserInput, "the program has not run yet, so it has no launch to step through",
                             "run it (F5)");
        else if (!debug_backend_)
            out = make_error(debug_unavailable_->kind, "the debugger needs the CPU backend: " + debug_unavailable_->message,
                             debug_unavailable_->hint);
        else
            out = record_launch_block(*debug_backend_, request, *run, index, block, warp);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            debug_done_ = std::move(out);
        }
        if (wake) wake();
    });
}

std::optional<Result<BlockDebugRun>> ProgramRunState::take_debug() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::optional<Result<BlockDebugRun>> out = std::move(debug_done_);
    debug_done_.reset();
    return out;
}

Result<std::filesystem::path> ProgramRunState::save_launch_as_lesson(size_t index,
                                                                    const std::filesystem::path& dir) const {
    std::shared_ptr<const ProgramRun> run;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        run = last_shared_;
    }
    if (!run) return make_error(ErrorKind::UserInput, "no run of the program to save a launch of", "run it first (F5)");
    auto lesson = lesson_from_launch(last_request_, *run, index);
    if (!lesson) return lesson.error();
    return write_program_lesson(*lesson, dir);
}

}  // namespace cp::ui
