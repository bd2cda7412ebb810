// Runs the kernel session off the UI thread: one job at a time (compile if the text changed, resolve,
// launch, read back). The UI submits only when the runner is idle and has taken the previous outcome,
// so device buffers never change while the UI copies them into textures.
#pragma once

#include "core/cuda/recording_prepare.h"
#include "core/session/compare_runner.h"
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
    // Instead of a live run: the memory recording (issue 23) with the job's choices: the run again with
    // RunOptions::memory, whose report answers only RunOutcome::memory (the picture shown is left as it is).
    bool record_memory = false;
    // Instead of a live run: the debugger's recording of this block (linear index) with the job's text and choices
    // (KernelSession::record_block), in a session of its own, so the buffers of the picture shown stay as they are;
    // on the CPU backend (the live one when it can step, else one made for it).
    std::optional<uint64_t> debug_block;
    int32_t debug_warp = -1;  // with debug_block: LaunchRequest::debug_warp
    // Whether a variant's views need its outputs in host memory (plots, tables, no device path); variants read
    // back only then or when the job checks its results. Called on the runner's thread.
    std::function<bool(const KernelFile&)> host_data_for;
    // Instead of running: the exact values of these outputs as the session's last run left them
    // (KernelSession::read_output), for a picture that came as a preview (the inspector's values over a remote
    // link). The kernel and choices are left as they are; nothing runs.
    std::vector<std::string> read_outputs;
    std::chrono::steady_clock::time_point submitted;  // set by submit()
};

// One output's exact values fetched by a read_outputs job, or why they could not be.
struct FetchedOutput {
    std::string name;
    Result<HostBuffer> values;
};

// One variant's run beside the main kernel's (compile errors and faults are in its report).
using VariantOutcome = VariantRun;

struct RunOutcome {
    uint64_t job_id = 0;
    RunReport report;  // report.resolved: what the launch used (also when it was refused after resolving)
    std::optional<Result<OccupancyResult>> suggestion;  // the answer of a suggest_block job (nothing ran)
    std::optional<Result<SweepResult>> sweep;           // the result of a sweep job (no run report)
    // The result of a sanitize job: its run's report (its buffers are gone) and the findings; `report` above
    // is left empty.
    std::optional<Result<SanitizedRun>> sanitized;
    std::vector<VariantOutcome> variants;               // a compare job's variants, in `compare:` order
    std::optional<Result<MemoryRecording>> memory;      // the answer of a record_memory job
    std::optional<Result<BlockDebugRun>> debug;         // the answer of a debug_block job
    std::optional<std::vector<FetchedOutput>> fetched;  // the answer of a read_outputs job (nothing ran)
    double wall_ms = 0;                                 // submit -> done
    std::chrono::steady_clock::time_point submitted, finished;
};

// The checks of a run that were left pending so its picture could be shown first (RunOptions::defer_check):
// each the check stage's product, for the job that ran (Workspace puts them into its reports with take_check).
struct CheckOutcome {
    uint64_t job_id = 0;
    std::optional<Checked> main;                 // set when the main run's check was pending
    std::vector<std::optional<Checked>> variants;  // by variant, likewise
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

    // Idle: no job running or checking, and no outcome or check waiting to be taken.
    bool idle() const;
    bool has_outcome() const;  // a run's outcome or a check's is waiting
    // Precondition: idle(). Returns false (and ignores the job) otherwise.
    bool submit(RunJob job);
    std::optional<RunOutcome> take_outcome();
    // A run's outcome comes as soon as its outputs are on the device; its check (the CPU reference, when the job
    // verifies) follows on the runner's thread and comes here. The runner stays busy until it is done.
    std::optional<CheckOutcome> take_check();
    // The backend sanitize jobs run on (default: the CUDA worker under compute-sanitizer); tests pass their own.
    // Call while idle.
    void set_sanitized_backend_factory(SanitizedBackendFactory factory) { sanitized_factory_ = std::move(factory); }
    // The other devices a `devices:` file is split over (KernelSession::use_devices). Call while idle.
    void use_devices(int count, OpenEngine open) { session_->use_devices(count, std::move(open)); }
    // Blocks until the current job (if any) finished; the outcome stays for take_outcome().
    void wait_until_done();
    // The recording's copy of the kernel run last is being prepared in the background (recording_prepare.h).
    bool preparing_recording() { return preparer_.running(); }

private:
    void worker_loop();
    RunOutcome execute(RunJob& job);
    Result<BlockDebugRun> record_block(RunJob& job);
    // Keeps copies of the reports whose check is pending (their outputs included) for run_checks().
    void keep_pending_checks(const RunOutcome& out);
    CheckOutcome run_checks();


    std::unique_ptr<Engine> engine_;
    std::unique_ptr<KernelSession> session_;
    std::unique_ptr<CompareRunner> compare_;  // the variants of the last compare job, in their own sessions
    // The debugger's: a CPU engine when the live one cannot step (made on the first debug job), and the session
    // its recordings run in.
    std::unique_ptr<Engine> debug_engine_;
    std::unique_ptr<KernelSession> debug_session_;
    // The Memory switch's copy of a kernel run on this machine's GPU, prepared in the background after its first
    // run (recording_prepare.h); the source last looked at, so a re-run every frame reads no file.
    RecordingPreparer preparer_;
    std::string prepare_checked_;
    std::function<void()> on_done_;
    SanitizedBackendFactory sanitized_factory_;

    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::optional<RunJob> job_;
    std::optional<RunOutcome> outcome_;
    std::optional<CheckOutcome> check_;
    // The runner thread's own: the reports still to check (copies, their outputs included), by job.
    struct PendingChecks {
        uint64_t job_id = 0;
        std::optional<RunReport> main;
        std::vector<std::optional<RunReport>> variants;
    };
    std::optional<PendingChecks> pending_;
    bool running_ = false, stopping_ = false;
    std::thread worker_;
};

}  // namespace cp::ui
