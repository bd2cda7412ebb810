// Workspace, the occupancy suggestion: the Launch panel's request goes to the session on the runner's
// thread (the engine's occupancy API) like a run, so the UI never waits for the backend; the answer, or
// the local estimate when there is no backend or it cannot answer, is applied, shown and logged.
#include "ui/workspace.h"

namespace cp::ui {

void Workspace::submit_block_suggestion() {
    block_suggestion_.requested = false;
    if (!runner_->capabilities().occupancy_api) {
        // Nothing to ask: the estimate from the last compile's resource usage is pure and immediate.
        const std::vector<uint64_t> none;
        const auto& resolved = latest_ ? latest_->report.resolved : std::nullopt;
        const auto& problem = resolved ? resolved->problem : none;
        const uint32_t shared = resolved ? resolved->dynamic_shared_bytes : 0;
        const ResourceUsage usage = latest_ ? latest_->report.usage : ResourceUsage{};
        use_block_suggestion(suggestion_from_estimate(device_status_.device, usage, shared,
                                                      problem_dims_of(problem, files_.parsed()),
                                                      can_run() ? "the " + device_status_.device.backend + " backend has no occupancy API"
                                                                : "nothing runs kernels here, so CUDA's usual limits"));
        return;
    }
    RunJob job = job_from_inputs();
    job.suggest_block = true;
    block_suggestion_.pending = runner_->submit(std::move(job));
}

void Workspace::apply_block_suggestion(RunOutcome outcome) {
    block_suggestion_.pending = false;
    // The suggestion job resolved inside the session; the last run's resolved sizes describe the same kernel.
    const std::vector<uint64_t> none;
    const auto& resolved = latest_ ? latest_->report.resolved : std::nullopt;
    const int dims = problem_dims_of(resolved ? resolved->problem : none, files_.parsed());
    const Result<OccupancyResult>& answer = *outcome.suggestion;
    if (answer.ok()) {
        use_block_suggestion(suggestion_from_api(*answer, dims));
        return;
    }
    // The backend could not answer (no occupancy API, the kernel does not compile...): estimate, and say why.
    console_.add(LogKind::Warning, "Occupancy API unavailable: " + answer.error().full());
    const ResourceUsage usage = latest_ ? latest_->report.usage : ResourceUsage{};
    const uint32_t shared = resolved ? resolved->dynamic_shared_bytes : 0;
    use_block_suggestion(suggestion_from_estimate(device_status_.device, usage, shared, dims,
                                                  "the backend could not answer"));
}

void Workspace::use_block_suggestion(const AppliedSuggestion& suggestion) {
    block_suggestion_.shown = suggestion.text;
    console_.add(LogKind::Info, "Suggested block " + suggestion.block.str() + " — " + suggestion.text);
    if (inputs_.choices.block != suggestion.block) {
        inputs_.choices.block = suggestion.block;
        inputs_.touch();
    }
}

// A block-size sweep, asked by the Sweep panel: submitted like a run when the runner is idle.
void Workspace::submit_sweep() {
    sweep_.requested = false;
    if (!can_run()) {
        sweep_.result = Result<SweepResult>(
            make_error(ErrorKind::Unsupported, "nothing runs kernels here, so there is nothing to time"));
        return;
    }
    sweep_.progress = std::make_shared<SweepProgress>();
    RunJob job = job_from_inputs();
    job.sweep_progress = sweep_.progress;
    job.sweep_repeats = sweep_.repeats;
    sweep_.running = runner_->submit(std::move(job));
}

}  // namespace cp::ui
