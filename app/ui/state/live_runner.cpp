// The session worker: applies a job's choices to the KernelSession and runs it, on its own thread.
#include "ui/state/live_runner.h"

#include "core/cuda/nvrtc_compiler.h"

namespace cp::ui {

LiveRunner::LiveRunner(std::unique_ptr<Engine> engine, std::string why_no_engine, std::function<void()> on_done)
    : engine_(std::move(engine)), why_no_engine_(std::move(why_no_engine)), on_done_(std::move(on_done)) {
    if (engine_) {
        session_ = std::make_unique<KernelSession>(*engine_);
        device_ = session_->device();
    }
    worker_ = std::thread([this] { worker_loop(); });
}

LiveRunner::~LiveRunner() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    cv_.notify_all();
    worker_.join();
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

// Without a backend the compiler still works: NVRTC needs no GPU. The report carries its diagnostics and
// resource usage; nothing is launched, and that is not an error (the banner says why).
void LiveRunner::compile_without_engine(const KernelFile& file, RunReport& report) {
    report.title = file.spec.title;
    report.diagnostics = file.diagnostics;
    if (!file.usable()) {
        report.failed_stage = RunStage::Metadata;
        report.error = make_error("the kernel file has errors (see the editor)");
        return;
    }
    report.kernel = file.signature->name;
    CompileRequest request;
    request.source = file.source;
    request.path = file.path.string();
    request.kernel_name = file.signature->name;
    const CompileResult c = compile_with_nvrtc(request, kArchWithoutDevice, nullptr);
    report.diagnostics.insert(report.diagnostics.end(), c.diagnostics.begin(), c.diagnostics.end());
    report.usage = c.usage;
    report.compile_ms = c.compile_ms;
    report.cache_hit = c.cache_hit;
    if (!c.ok) {
        report.failed_stage = RunStage::Compile;
        report.error = c.error ? make_error(c.error->message, c.error->hint) : make_error("the kernel does not compile");
    }
}

RunOutcome LiveRunner::execute(RunJob& job) {
    RunOutcome out;
    out.job_id = job.id;
    out.submitted = job.submitted;
    if (!session_) {
        if (job.suggest_block) out.suggestion = make_error("no backend to ask: " + why_no_engine_);
        else compile_without_engine(job.file, out.report);
        out.finished = std::chrono::steady_clock::now();
        out.wall_ms = std::chrono::duration<double, std::milli>(out.finished - out.submitted).count();
        return out;
    }
    KernelSession& s = *session_;
    s.set_kernel(std::move(job.file));
    s.clear_param_overrides();
    for (const auto& [name, value] : job.params)
        if (auto r = s.set_param_value(name, value); !r) out.input_problems.push_back(r.error().full());
    s.set_block_override(job.block);
    s.set_grid_override(job.grid);
    // Every image buffer gets its path set, so a choice made for an earlier kernel cannot linger.
    for (const BufferSpec& b : s.kernel().spec.buffers) {
        if (b.init.kind != BufferInit::Kind::Image) continue;
        auto it = job.images.find(b.name);
        s.set_image_override(b.name, it != job.images.end() ? it->second : b.init.image);
    }

    if (auto resolved = s.resolve(); resolved) out.resolved = *resolved;
    if (job.suggest_block) out.suggestion = s.suggest_block();
    else out.report = s.run(job.options);
    out.finished = std::chrono::steady_clock::now();
    out.wall_ms = std::chrono::duration<double, std::milli>(out.finished - out.submitted).count();
    return out;
}

}  // namespace cp::ui
