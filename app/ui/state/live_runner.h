// Runs the kernel session off the UI thread: one job at a time (compile if the text changed, resolve,
// launch, read back). The UI submits only when the runner is idle and has taken the previous outcome,
// so device buffers never change while the UI copies them into textures.
#pragma once

#include "core/session/sanitize.h"
#include "core/session/session.h"
#include "ui/state/sweep_state.h"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace cp::ui {

struct RunJob {
    uint64_t id = 0;
    KernelFile file;
    RunChoices choices;
    RunOptions options;
    // Instead of running: ask the engine's occupancy API for a block size (KernelSession::suggest_block),
    // with the job's choices applied (they decide the dynamic shared memory).
    bool suggest_block = false;
    // Instead of running: a block-size sweep (KernelSession::sweep) reporting into `sweep_progress`.
    std::shared_ptr<SweepProgress> sweep_progress;
    int sweep_repeats = 10;
    // Instead of a live run: one run on a fresh backend under compute-sanitizer with this tool
    // (core/session/sanitize.h); the live session and its buffers are left as they are.
    std::string sanitize_tool;
    // A plain run of a lesson with `compare:`: also run each variant it lists (core/session/variants.h) with the
    // same choices, after the main kernel, each in its own session so its buffers stay for the UI to show.
    bool compare = false;
    std::chrono::steady_clock::time_point submitted;  // set by submit()
};

// One variant's run beside the main kernel's.
struct VariantOutcome {
    std::string name;                 // as `compare:` lists it
    std::optional<KernelFile> file;   // what ran (nullopt: it could not be read, `problem` says why)
    std::optional<RunReport> report;  // its run (compile errors and faults are in it)
    Error problem;
};

struct RunOutcome {
    uint64_t job_id = 0;
    RunReport report;  // report.resolved: what the launch used (also when it was refused after resolving)
    std::optional<Result<OccupancyResult>> suggestion;  // the answer of a suggest_block job (nothing ran)
    std::optional<Result<SweepResult>> sweep;           // the result of a sweep job (no run report)
    // The result of a sanitize job: its run's report (its buffers are gone) and the findings; `report` above
    // is left empty.
    std::optional<Result<SanitizedRun>> sanitized;
    std::vector<VariantOutcome> variants;               // a compare job's variants, in `compare:` order
    double wall_ms = 0;                                 // submit -> done
    std::chrono::steady_clock::time_point submitted, finished;
};

class LiveRunner {
public:
    // `engine` must not be null (the workspace falls back to a compile-only backend when nothing can run).
    // `on_done` is called on the worker thread after each job (use it to wake the UI's event wait).
    LiveRunner(std::unique_ptr<Engine> engine, std::function<void()> on_done);
    ~LiveRunner();
    LiveRunner(const LiveRunner&) = delete;
    LiveRunner& operator=(const LiveRunner&) = delete;

    const DeviceInfo& device() const { return engine_->device(); }
    const BackendCapabilities& capabilities() const { return engine_->capabilities(); }

    // Idle: no job running and no outcome waiting to be taken.
    bool idle() const;
    bool has_outcome() const;
    // Precondition: idle(). Returns false (and ignores the job) otherwise.
    bool submit(RunJob job);
    std::optional<RunOutcome> take_outcome();
    // The backend sanitize jobs run on (default: the CUDA worker under compute-sanitizer); tests pass their own.
    // Call while idle.
    void set_sanitized_backend_factory(SanitizedBackendFactory factory) { sanitized_factory_ = std::move(factory); }
    // The other devices a `devices:` file is split over (KernelSession::use_devices). Call while idle.
    void use_devices(int count, OpenEngine open) { session_->use_devices(count, std::move(open)); }
    // Blocks until the current job (if any) finished; the outcome stays for take_outcome().
    void wait_until_done();

private:
    void worker_loop();
    RunOutcome execute(RunJob& job);
    void run_variants(const RunJob& job, RunOutcome& out);

    std::unique_ptr<Engine> engine_;
    std::unique_ptr<KernelSession> session_;
    std::vector<std::unique_ptr<KernelSession>> variant_sessions_;  // one per variant of the last compare job
    std::function<void()> on_done_;
    SanitizedBackendFactory sanitized_factory_;

    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::optional<RunJob> job_;
    std::optional<RunOutcome> outcome_;
    bool running_ = false, stopping_ = false;
    std::thread worker_;
};

}  // namespace cp::ui
