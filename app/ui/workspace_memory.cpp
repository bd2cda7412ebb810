// Workspace: the memory view (issue 23). With the Memory switch on, each run shown is followed, once the runner
// is idle, by a recording job of the same text and choices (the figures never hold up a picture); its figures go
// to the Memory panel and the editor's gutter. Nothing here runs while the switch is off.
#include "ui/workspace.h"

#include <chrono>

namespace cp::ui {

void Workspace::maybe_submit_memory(double now) {
    if (!memory_.enabled || !doc() || !can_run()) return;
    // Only the run shown is recorded: an edit still waiting for its compile pause is not it.
    if (doc()->revision() != submitted_.doc_revision || inputs_.revision != submitted_.inputs_revision ||
        files_.parsed_path() != submitted_.path)
        return;
    memory_.wanted_key = submitted_.path + "#" + std::to_string(submitted_.doc_revision) + "#" +
                         std::to_string(submitted_.inputs_revision) + "#" + std::to_string(memory_.warp.block) + "." +
                         std::to_string(memory_.warp.warp);
    if (memory_.recording || memory_.wanted_key == memory_.recorded_key) return;
    RunJob job = job_from_inputs();
    job.record_memory = true;
    job.options.timing = TimingOptions{0, 1, false};
    job.options.memory_warps = {memory_.warp};
    memory_.recording_warp = memory_.warp;
    if (memory_.requested_at == 0) memory_.requested_at = now;
    memory_.recording = true;
    memory_.recorded_key = memory_.wanted_key;  // a failed recording is not retried until something changes
    runner_->submit(std::move(job));
}

void Workspace::apply_memory(Result<MemoryRecording> recorded) {
    memory_.recording = false;
    if (memory_.requested_at > 0) memory_.took_ms = (now_ - memory_.requested_at) * 1000.0;
    memory_.requested_at = 0;
    if (!recorded) {
        memory_.error = recorded.error().full();
        memory_.result.reset();
        memory_.marks.clear();
        console_.add(LogKind::Error, "Memory: " + memory_.error);
        return;
    }
    const bool first = !memory_.result;
    memory_.take(std::move(*recorded));
    // The first figures of a kernel: its worst access line comes into view (the editor scrolls only when it is
    // not on screen), where the gutter says what is wrong with it.
    if (first && !memory_.marks.empty()) {
        const MemoryLineMark* worst = &memory_.marks.front();
        for (const MemoryLineMark& m : memory_.marks)
            if (m.grade > worst->grade) worst = &m;
        compile_status_.reveal_line = worst->line;
        ++compile_status_.reveal_serial;
        // The warp picture opens on the access that wastes most (a conflicting shared store rather than the
        // coalesced load before it on the same line).
        memory_.access = memory_.worst_access();
        memory_.request = 0;
    }
}

}  // namespace cp::ui
