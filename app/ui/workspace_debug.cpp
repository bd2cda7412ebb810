// Workspace: the debugger (issue 39). While the Debug panel is shown, the run shown is followed (once the runner is
// idle and typing has paused) by a recording job of the chosen block with the same text and choices, in a session
// of its own; every move in the panel is then a look-up in that recording. Nothing here runs while the panel is
// closed.
#include "ui/workspace.h"

namespace cp::ui {

namespace {
constexpr double kDebugTypingPause = 1.0;  // seconds without typing before a shown recording follows an edit
}

bool Workspace::debug_shown() const { return debug_panel_ && debug_panel_->visible && debug_drawn_frames_ >= 2; }

std::string Workspace::debug_key() const {
    const Dim3 b = debug_.block;
    return submitted_.path + "#" + std::to_string(submitted_.doc_revision) + "#" + std::to_string(submitted_.inputs_revision) +
           "#" + std::to_string(b.x) + "," + std::to_string(b.y) + "," + std::to_string(b.z);
}

void Workspace::maybe_submit_debug(double now) {
    if (!debug_shown() || !doc() || !can_run() || !runner_->idle() || debug_.recording) return;
    // Only the run shown is recorded: an edit still waiting for its compile pause is not it.
    if (doc()->revision() != submitted_.doc_revision || inputs_.revision != submitted_.inputs_revision ||
        files_.parsed_path() != submitted_.path)
        return;
    if (now - doc()->last_edit_time() < kDebugTypingPause && debug_.has()) return;
    const Dim3 b = debug_.block;
    debug_.wanted_key = debug_key();
    if (debug_.wanted_key == debug_.recorded_key) return;
    debug_.recorded_key = debug_.wanted_key;  // a failed recording is not retried until something changes
    if (!latest_ || !latest_->report.resolved) {
        debug_.fail(make_error(ErrorKind::UserInput, "the kernel has not run yet, so there is no grid to pick a block from",
                               "fix what stops it running (the Editor and Console say what), then step through it"));
        return;
    }
    const Dim3 grid = latest_->report.resolved->grid;
    if (b.x >= grid.x || b.y >= grid.y || b.z >= grid.z) {
        debug_.fail(make_error(ErrorKind::UserInput,
                               "block (" + std::to_string(b.x) + "," + std::to_string(b.y) + "," + std::to_string(b.z) +
                                   ") is not in the grid " + grid.str(),
                               "pick x, y and z below the grid's"));
        return;
    }
    RunJob job = job_from_inputs();
    job.debug_block = b.x + uint64_t(grid.x) * (b.y + uint64_t(grid.y) * b.z);
    debug_.recording = true;
    debug_requested_at_ = now;
    runner_->submit(std::move(job));
}

void Workspace::apply_debug(Result<BlockDebugRun> recorded) {
    debug_.took_ms = (now_ - debug_requested_at_) * 1000.0;
    if (!recorded) {
        debug_.fail(recorded.error());
        console_.add(LogKind::Error, "Debug: " + debug_.error);
        return;
    }
    const bool faulted = recorded->failure.has_value();
    debug_.take(std::move(*recorded));
    if (faulted) {
        console_.add(LogKind::Error, "Debug: block (" + std::to_string(debug_.block.x) + "," + std::to_string(debug_.block.y) +
                                         "," + std::to_string(debug_.block.z) + ") stopped: " +
                                         (*debug_.failure())->named_message());
    }
}

void Workspace::follow_debug_stop() {
    if (debug_.moves == debug_moves_seen_) return;
    debug_moves_seen_ = debug_.moves;
    // The stop's line comes into view (the editor scrolls only when it is not on screen).
    if (const int line = debug_.main_line(); line > 0) {
        compile_status_.reveal_line = line;
        ++compile_status_.reveal_serial;
    }
}

void Workspace::debug_block_that_faulted() {
    if (!latest_ || !latest_->report.error || !latest_->report.error_block) return;
    debug_.block = *latest_->report.error_block;
    layout_.show("Debug");
}

}  // namespace cp::ui
