// Workspace: the debugger (issue 39). While the Debug panel is shown, the run shown is followed (once the runner is
// idle and typing has paused) by a recording job of the chosen block with the same text and choices, in a session
// of its own; every move in the panel is then a look-up in that recording. For a whole program or a Python script,
// the block is of the launch the Program panel shows, recorded on its captured inputs by the program's state.
// Nothing here runs while the panel is closed.
#include "ui/workspace.h"

namespace cp::ui {

namespace {
constexpr double kDebugTypingPause = 1.0;  // seconds without typing before a shown recording follows an edit
}

bool Workspace::debug_shown() const { return debug_panel_ && debug_panel_->visible && debug_drawn_frames_ >= 2; }

std::string Workspace::debug_key() const {
    const Dim3 b = debug_.block;
    const std::string block_and_warp = "#" + std::to_string(b.x) + "," + std::to_string(b.y) + "," + std::to_string(b.z) +
                                       "#w" + std::to_string(debug_.recorded_warp());
    if (program_doc_ && program_doc_path_ == submitted_program_path())
        return "program#" + std::to_string(program_.runs_taken()) + "#" + std::to_string(program_.selected) + block_and_warp;
    return submitted_.path + "#" + std::to_string(submitted_.doc_revision) + "#" + std::to_string(submitted_.inputs_revision) +
           block_and_warp;
}

std::string Workspace::submitted_program_path() const { return doc() ? doc()->original_path().string() : std::string(); }

// The launch the Program panel shows, of the program's last run, and its block that faulted if it did.
const ProgramLaunch* Workspace::debugged_launch() const {
    const std::optional<ProgramRun>& run = program_.last();
    if (!run || run->launches.empty()) return nullptr;
    return &run->launches[std::min(program_.selected, run->launches.size() - 1)];
}

void Workspace::maybe_submit_program_debug(double now) {
    if (program_.running()) return;
    debug_.wanted_key = debug_key();
    if (debug_.wanted_key == debug_.recorded_key) return;
    debug_.recorded_key = debug_.wanted_key;
    const std::optional<ProgramRun>& run = program_.last();
    if (!run) {
        debug_.fail(make_error(ErrorKind::UserInput, "the program has not run yet, so it has no launch to step through",
                               "run it (F5); its launches are listed in the Program panel"));
        return;
    }
    const ProgramLaunch* l = debugged_launch();
    if (!l) {
        debug_.fail(make_error(ErrorKind::UserInput,
                               "the program made no kernel launch, so there is no block to step through",
                               "check what it printed in the Console: it may have stopped before its first launch"));
        return;
    }
    const Dim3 b = debug_.block;
    if (b.x >= l->grid.x || b.y >= l->grid.y || b.z >= l->grid.z) {
        debug_.fail(make_error(ErrorKind::UserInput,
                               "block (" + std::to_string(b.x) + "," + std::to_string(b.y) + "," + std::to_string(b.z) +
                                   ") is not in the launch's grid " + l->grid.str(),
                               "pick x, y and z below the grid's"));
        return;
    }
    const size_t index = std::min(program_.selected, run->launches.size() - 1);
    debug_.subject = "Launch " + std::to_string(index + 1) + " of " +
                     std::filesystem::path(program_.last_path()).filename().string() + " (`" + l->kernel + "` at " +
                     launch_site_text(*l) + "), on its inputs as the program made them";
    debug_.recording = true;
    debug_requested_at_ = now;
    render::RenderTarget* wake_target = &target_;
    program_.start_debug(index, b.x + uint64_t(l->grid.x) * (b.y + uint64_t(l->grid.y) * b.z), debug_.recorded_warp(),
                         [wake_target] { wake_target->wake(); });
}

void Workspace::maybe_submit_debug(double now) {
    if (!debug_shown() || !doc() || debug_.recording) return;
    if (document_is_program()) return maybe_submit_program_debug(now);
    if (!can_run() || !runner_->idle()) return;
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
    job.debug_warp = debug_.recorded_warp();
    debug_.subject.clear();
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
    if (const std::optional<Dim3> f = debug_faulted_block()) {
        debug_.block = *f;
        layout_.show("Debug");
    }
}

std::optional<Dim3> Workspace::debug_faulted_block() const {
    if (program_doc_) {
        const ProgramLaunch* l = debugged_launch();
        if (l && l->error && l->error->block) return l->error->block;
        return std::nullopt;
    }
    if (latest_ && latest_->report.error && latest_->report.error_block) return latest_->report.error_block;
    return std::nullopt;
}

std::optional<Dim3> Workspace::debug_grid() const {
    if (program_doc_) {
        const ProgramLaunch* l = debugged_launch();
        return l ? std::optional<Dim3>(l->grid) : std::nullopt;
    }
    if (latest_ && latest_->report.resolved) return latest_->report.resolved->grid;
    return std::nullopt;
}

void Workspace::debug_program_launch(size_t index) {
    program_.selected = index;
    const ProgramLaunch* l = debugged_launch();
    debug_.block = l && l->error && l->error->block ? *l->error->block : Dim3{0, 0, 0};
    layout_.show("Debug");
}

}  // namespace cp::ui
