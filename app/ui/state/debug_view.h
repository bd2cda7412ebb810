// The Debug panel's state (issue 39), free of ImGui: the block chosen, the breakpoints, the recording of the
// block's whole run (KernelSession::record_block) and the stop shown in it. Every move (a step, back, continue to
// a breakpoint, the next barrier, the time slider, a value's writer) is a look-up in the recording: nothing runs
// again. The rows of the warp-watch grid and the shared arrays at the stop are made here, once per stop.
#pragma once

#include "core/engine/debug_recording.h"
#include "core/session/launcher.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cp::ui {

// What the editor shows of the debugger: the breakpoints, and where the watched threads stand at the stop.
struct DebugEditorMarks {
    std::set<int> breakpoints;
    std::map<int, uint32_t> threads_at;  // line -> watched threads standing there (none when nothing is recorded)
    int fault_line = 0;                  // the line the block faulted on, when it did
};

// Where a thread is at the stop.
enum class DebugThreadState : uint8_t { NotStarted, Stepped, Waiting, Returned };

// One row of the warp-watch grid: a thread and its variables at the stop, by column (empty: not in scope there).
struct DebugRow {
    uint32_t thread = 0;
    Dim3 index;  // threadIdx
    int line = 0;
    DebugThreadState state = DebugThreadState::NotStarted;
    std::vector<std::string> values;  // per DebugViewState::columns() (the variables, then the watches)
    std::vector<bool> changed;        // the value differs from the one it had at the stop before
};

// A shared array at the stop: its values as text, and the thread that stored each element last (-1: none).
struct DebugSharedView {
    std::string name;
    std::vector<uint64_t> extents;
    std::vector<std::string> values;
    std::vector<int64_t> writers;       // thread
    std::vector<int32_t> writer_lines;  // the line of the writing statement (0: none)
    std::vector<uint32_t> writer_rounds;
    std::vector<bool> changed;  // differs from the stop before
};

class DebugViewState {
public:
    // What the user chose.
    Dim3 block{0, 0, 0};
    int warp = 0;  // the warp watched (its 32 lanes); -1: every thread of the block
    // The watched warp steps alone in the recording: the other warps wait at their line until it reaches a
    // __syncthreads() or returns (LaunchRequest::debug_warp). Choosing another warp records again.
    bool warp_alone = false;
    int32_t recorded_warp() const { return warp_alone && warp >= 0 ? warp : -1; }
    // What the recording is of, when not the kernel file's own run: "Launch 2 of reduce.cu (line 38)".
    std::string subject;
    DebugEditorMarks marks;
    uint64_t moves = 0;       // counts every change of the stop (the editor brings the stop's line into view)
    int pending_barrier = 0;  // the next recording stops at this __syncthreads() (1-based; --debug-barrier)

    // The recording's life (the workspace submits it and hands the answer back).
    bool recording = false;
    std::string wanted_key, recorded_key;  // what a recording is of (file, text, choices, block)
    std::string error;
    std::optional<ErrorKind> error_kind;
    double took_ms = 0;

    void take(BlockDebugRun run);
    void fail(const Error& e);
    void forget();  // another kernel
    bool has() const { return run_ != nullptr; }
    bool stale() const { return has() && wanted_key != recorded_key; }
    const DebugRecording* recording_data() const { return run_ ? &run_->recording : nullptr; }
    const std::optional<LaunchFailure>* failure() const { return run_ ? &run_->failure : nullptr; }
    const DebugTimeline* timeline() const { return timeline_.get(); }

    // The stop.
    uint32_t round() const { return round_; }
    uint32_t rounds() const { return run_ ? run_->recording.rounds : 0; }
    void set_round(uint32_t round);
    // F10: the next round in which a watched thread ran a statement (false at the end).
    bool step_forward();
    bool step_back();
    // The next round after the stop in which a thread arrives at a breakpoint's line; with none ahead, the end
    // (false).
    bool continue_to_breakpoint();
    // The next barrier after the stop (false: none ahead).
    bool next_barrier();
    // The round in which the statement that gave `thread` the value of `name` shown now ran, made the stop
    // (false: the variable has no value there). The thread is then the one selected.
    bool jump_to_writer(uint32_t thread, const std::string& name);
    // Shared element `index` of array `array`: the stop moves to the round of the store that wrote it last.
    bool jump_to_shared_writer(size_t array, uint64_t index);
    void toggle_breakpoint(int line);
    // Watch expressions (DebugTimeline::watch): a column each in the grid, after the variables.
    void add_watch(const std::string& expression);
    void remove_watch(size_t index);
    const std::vector<std::string>& watches() const { return watches_; }
    // Why a watch has no value for a thread, by column (the grid's hover; empty where it has one).
    const std::map<std::pair<uint32_t, size_t>, std::string>& watch_notes() const { return watch_notes_; }
    void set_warp(int warp);
    uint32_t warps() const;
    std::optional<uint32_t> selected_thread;  // highlighted in the grid (after a jump)

    // The views at the stop (made once per stop and warp).
    const std::vector<std::string>& columns() const { return columns_; }
    const std::vector<DebugRow>& rows() const { return rows_; }
    const std::vector<DebugSharedView>& shared() const { return shared_; }
    // The buffer elements the block touched up to the stop, as text: "in[64..95] read; out[64..69] written".
    std::string touched_text() const;
    // "round 9 of 43 · barrier 2 of 7": where the stop is, or "" without a recording.
    std::string where_text() const;
    // The line where most watched threads stand at the stop (0: none).
    int main_line() const;
    // Which barrier the stop is at (1-based), 0 when it is not at one.
    int barrier_at_stop() const;

private:
    void refresh();  // the views for the stop: after every move
    std::vector<uint32_t> watched() const;

    std::unique_ptr<BlockDebugRun> run_;
    std::unique_ptr<DebugTimeline> timeline_;
    uint32_t round_ = 0;
    uint32_t previous_ = 0;  // the stop before the last move: what changed is shown against it
    std::vector<std::string> columns_;
    std::vector<DebugRow> rows_;
    std::vector<DebugSharedView> shared_;
    std::vector<std::string> watches_;
    std::map<std::pair<uint32_t, size_t>, std::string> watch_notes_;  // (thread, column) -> why no value
};

}  // namespace cp::ui
