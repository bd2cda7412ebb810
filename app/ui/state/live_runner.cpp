// The session worker: applies a job's choices to the KernelSession and runs it, on its own thread.
#include "ui/state/live_runner.h"

#include "core/session/variants.h"

namespace cp::ui {

LiveRunner::LiveRunner(std::unique_ptr<Engine> engine, std::function<void()> on_done)
    : engine_(std::move(engine)), session_(std::make_unique<KernelSession>(*engine_)), on_done_(std::move(on_done)) {
    worker_ = std::thread([this] { worker_loop(); });
}

LiveRunner::~LiveRunner() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    cv_.notify_all();
    worker_.join();
    variant_sessions_.clear();
    session_.reset();  // releases its buffers through the engine before the engine goes
    engine_.reset();
}

bool LiveRunner::idle() const {
    std::lock_guard lock(mutex_);
    return !running_ && !job_ && !outcome_;
}

bool LiveRunner::has_outcome() const {
    std::lock_guard lock(mutex_);
    return outcome_.has_value();
}

bool LiveRunner::submit(RunJob job) {
    job.submitted = std::chrono::steady_clock::now();
    {
        std::lock_guard lock(mutex_);
        if (running_ || job_ || outcome_) return false;
        job_ = std::move(job);
    }
    cv_.notify_all();
    return true;
}

std::optional<RunOutcome> LiveRunner::take_outcome() {
    std::lock_guard lock(mutex_);
    std::optional<RunOutcome> out = std::move(outcome_);
    outcome_.reset();
    return out;
}

void LiveRunner::wait_until_done() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [this] { return !running_ && !job_; });
}

void LiveRunner::worker_loop() {
    for (;;) {
        RunJob job;
        {
            std::unique_lock lock(mutex_);
            cv_.wait(lock, [this] { return stopping_ || job_.has_value(); });
            if (stopping_) return;
            job = std::move(*job_);
            job_.reset();
            running_ = true;
        }
        RunOutcome outcome = execute(job);
        {
            std::lock_guard lock(mutex_);
            outcome_ = std::move(outcome);
            running_ = false;
        }
        cv_.notify_all();
        if (on_done_) on_done_();
    }
}

RunOutcome LiveRunner::execute(RunJob& job) {
    RunOutcome out;
    out.job_id = job.id;
    out.submitted = job.submitted;
    if (!job.sanitize_tool.empty()) {
        out.sanitized = run_sanitized(job.file, job.choices, job.options, job.sanitize_tool, sanitized_factory_);
        out.finished = std::chrono::steady_clock::now();
        out.wall_ms = std::chrono::duration<double, std::milli>(out.finished - out.submitted).count();
        return out;
    }
    KernelSession& s = *session_;
    s.set_kernel(std::move(job.file));
    s.set_choices(std::move(job.choices));
    if (job.suggest_block) {
        out.suggestion = s.suggest_block();
    } else if (job.sweep_progress) {
        SweepOptions options;
        options.repeats = job.sweep_repeats;
        std::shared_ptr<SweepProgress> progress = job.sweep_progress;
        options.cancel = &progress->cancel;
        options.progress = [progress](size_t done, size_t total) {
            progress->total = total;
            progress->done = done;
        };
        out.sweep = s.sweep(options);
    } else {
        out.report = s.run(job.options);
        if (job.compare) {
            const auto started = std::chrono::steady_clock::now();
            run_variants(job, out);
            out.report.stages.variants_ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
        } else {
            variant_sessions_.clear();  // their buffers are no longer shown
        }
    }
    out.finished = std::chrono::steady_clock::now();
    out.wall_ms = std::chrono::duration<double, std::milli>(out.finished - out.submitted).count();
    return out;
}

void LiveRunner::run_variants(const RunJob& job, RunOutcome& out) {
    const KernelFile& main = session_->kernel();
    const auto variants = header_variants(main);
    variant_sessions_.resize(variants.size());
    // Coverage and traces are about the main kernel; each variant is timed and checked as it is.
    RunOptions options = job.options;
    options.coverage = false;
    options.trace = false;
    options.read_back = true;
    options.before_launch = nullptr;
    for (size_t i = 0; i < variants.size(); ++i) {
        VariantOutcome v;
        v.name = variants[i].first;
        const Result<KernelFile>& loaded = variants[i].second;
        if (!loaded) {
            v.problem = loaded.error();
            out.variants.push_back(std::move(v));
            continue;
        }
        if (!variant_sessions_[i]) variant_sessions_[i] = std::make_unique<KernelSession>(*engine_);
        KernelSession& vs = *variant_sessions_[i];
        vs.set_kernel(*loaded);
        vs.set_choices(variant_choices(main, session_->choices(), out.report.resolved ? &*out.report.resolved : nullptr, *loaded));
        v.file = vs.kernel();
        v.report = vs.run(options);
        out.variants.push_back(std::move(v));
    }
}

}  // namespace cp::ui
