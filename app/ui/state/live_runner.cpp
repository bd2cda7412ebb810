// The session worker: applies a job's choices to the KernelSession and runs it, on its own thread.
#include "ui/state/live_runner.h"
#include "core/backends/registry.h"
#include "core/clock.h"


namespace cp::ui {

LiveRunner::LiveRunner(std::unique_ptr<Engine> engine, std::function<void()> on_done)
    : engine_(std::move(engine)),
      session_(std::make_unique<KernelSession>(*engine_)),
      compare_(std::make_unique<CompareRunner>(*engine_)),
      on_done_(std::move(on_done)) {
    worker_ = std::thread([this] { worker_loop(); });
}

LiveRunner::~LiveRunner() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    cv_.notify_all();
    worker_.join();
    compare_.reset();
    debug_session_.reset();
    debug_engine_.reset();
    session_.reset();  // releases its buffers through the engine before the engine goes
    engine_.reset();
}

bool LiveRunner::idle() const {
    std::lock_guard lock(mutex_);
    return !running_ && !job_ && !outcome_ && !check_;
}

bool LiveRunner::has_outcome() const {
    std::lock_guard lock(mutex_);
    return outcome_.has_value() || check_.has_value();
}

bool LiveRunner::submit(RunJob job) {
    job.submitted = std::chrono::steady_clock::now();
    {
        std::lock_guard lock(mutex_);
        if (running_ || job_ || outcome_ || check_) return false;
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

std::optional<CheckOutcome> LiveRunner::take_check() {
    std::lock_guard lock(mutex_);
    if (outcome_) return std::nullopt;  // the run it checks is shown first
    std::optional<CheckOutcome> out = std::move(check_);
    check_.reset();
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
        keep_pending_checks(outcome);
        {
            std::lock_guard lock(mutex_);
            outcome_ = std::move(outcome);
            running_ = pending_.has_value();
        }
        cv_.notify_all();
        if (on_done_) on_done_();
        if (!pending_) continue;
        CheckOutcome checked = run_checks();
        {
            std::lock_guard lock(mutex_);
            check_ = std::move(checked);
            running_ = false;
        }
        cv_.notify_all();
        if (on_done_) on_done_();
    }
}

void LiveRunner::keep_pending_checks(const RunOutcome& out) {
    pending_.reset();
    PendingChecks pending;
    pending.job_id = out.job_id;
    bool any = false;
    if (out.report.check_pending) {
        pending.main = out.report;
        any = true;
    }
    for (const VariantOutcome& v : out.variants) {
        pending.variants.emplace_back();
        if (v.report && v.report->check_pending) {
            pending.variants.back() = *v.report;
            any = true;
        }
    }
    if (any) pending_ = std::move(pending);
}

CheckOutcome LiveRunner::run_checks() {
    PendingChecks pending = std::move(*pending_);
    pending_.reset();
    CheckOutcome out;
    out.job_id = pending.job_id;
    // Each session still holds the run's inputs and reference state: nothing ran in between.
    if (pending.main) out.main = session_->check(*pending.main);
    for (size_t i = 0; i < pending.variants.size(); ++i) {
        out.variants.emplace_back();
        KernelSession* session = compare_->session(i);
        if (!pending.variants[i] || !session) continue;
        out.variants.back() = session->check(*pending.variants[i]);
    }
    return out;
}

RunOutcome LiveRunner::execute(RunJob& job) {
    RunOutcome out;
    out.job_id = job.id;
    out.submitted = job.submitted;
    if (!job.sanitize_tool.empty()) {
        out.sanitized = run_sanitized(job.file, job.choices, job.options, job.sanitize_tool, sanitized_factory_);
        out.finished = std::chrono::steady_clock::now();
        out.wall_ms = ms_between(out.submitted, out.finished);
        return out;
    }
    if (job.debug_block) {
        out.debug = record_block(job);
        out.finished = std::chrono::steady_clock::now();
        out.wall_ms = ms_between(out.submitted, out.finished);
        return out;
    }
    KernelSession& s = *session_;
    if (!job.read_outputs.empty()) {
        // Before set_kernel: the buffers must stay as the last run left them.
        out.fetched.emplace();
        for (const std::string& name : job.read_outputs) out.fetched->push_back({name, s.read_output(name)});
        out.finished = std::chrono::steady_clock::now();
        out.wall_ms = ms_between(out.submitted, out.finished);
        return out;
    }
    s.set_kernel(std::move(job.file));
    s.set_choices(std::move(job.choices));
    if (job.suggest_block) {
        out.suggestion = s.suggest_block();
    } else if (job.record_memory) {
        // The recording stage over the products of the run shown (the same text and choices: its compile is the
        // cache's), without a second launch of the kernel itself.
        RunOptions options = job.options;
        options.memory = true;
        options.measurements_only = true;
        options.verify = false;
        options.read_back = false;
        RunReport report = s.run(options);
        if (report.error) out.memory = *report.error;
        else if (report.memory) out.memory = std::move(*report.memory);
        else
            out.memory =
                make_error(ErrorKind::Internal, "the recording gave no figures", "run `run FILE --memory` to see why");
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
        RunOptions options = job.options;
        options.defer_check = options.verify;  // the picture first, the check after it (run_checks)
        // The variants of the same file are loaded from the main kernel's compile (one compile per edit).
        s.set_also_kernels(job.compare ? compare_->prepare(s.kernel(), s.kernel().spec.compare) : std::vector<std::string>{});
        out.report = s.run(options);
        if (out.report.ok() && s.kernel().source != prepare_checked_) {
            // After the picture: the recording's copy, compiled by another process at low priority, so the first
            // recording of a large kernel need not wait seconds for it.
            prepare_checked_ = s.kernel().source;
            if (worth_preparing_recording(engine_->device(), s.kernel()))
                preparer_.prepare(s.kernel(), engine_->device().arch);
        }
        if (job.compare) {
            // Their outputs cross to the host only when the main run's do (a check, or views drawn from host
            // memory) or their own views need it: their images reach their columns device to device.
            const auto started = std::chrono::steady_clock::now();
            out.variants = compare_->run(s, out.report, options, {}, job.host_data_for);
            out.report.stages.variants_ms =
                ms_since(started);
        } else {
            compare_->clear();  // their buffers are no longer shown
        }
    }
    out.finished = std::chrono::steady_clock::now();
    out.wall_ms = ms_between(out.submitted, out.finished);
    return out;
}

Result<BlockDebugRun> LiveRunner::record_block(RunJob& job) {
    if (!debug_session_) {
        Engine* engine = engine_.get();
        if (!engine_->capabilities().debug_steps) {
            auto made = make_backend("cpu");
            if (!made)
                return make_error(made.error().kind, "the debugger needs the CPU backend: " + made.error().message,
                                  made.error().hint);
            debug_engine_ = std::make_unique<Engine>(std::move(made->backend));
            engine = debug_engine_.get();
        }
        debug_session_ = std::make_unique<KernelSession>(*engine);
    }
    KernelSession& s = *debug_session_;
    s.set_kernel(std::move(job.file));
    s.set_choices(std::move(job.choices));
    auto resolved = s.resolve();
    if (!resolved) return resolved.error();
    return s.record_block(*resolved, *job.debug_block, job.debug_warp);
}

}  // namespace cp::ui
