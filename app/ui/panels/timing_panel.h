// Timing panel: the last run's last / median / min of its repeats, a history plot of medians (hover shows
// the launch configuration each came from), achieved bandwidth as a fraction of the device's copy
// bandwidth, the recent runs as a table, a `devices:` run's parts per device, the timing options, and a
// comparison lesson's variants' times.
#pragma once

#include "ui/panels/device_split_view.h"
#include "ui/panels/panel.h"
#include "ui/state/compare_state.h"
#include "ui/state/run_inputs.h"
#include "ui/state/timing_history.h"

#include <string>
#include <vector>

namespace cp::ui {

// Shown with the times on the CPU backend (Timing panel, presentation mode).
inline constexpr const char* kCpuTimesNote = "CPU emulation: these times do not predict a GPU's.";
// On hover, why.
inline constexpr const char* kCpuTimesWhy =
    "The CPU backend runs the kernel's threads a few at a time on this machine's cores. Its times say nothing\n"
    "about a GPU's, nor which variant is faster on one: shared-memory tiling, for example, often makes a kernel\n"
    "slower here and faster on a GPU.";

// Run-loop switches the panel edits (owned by the workspace).
struct LiveOptions {
    bool every_frame = false;  // re-run continuously (benchmarks, watching timing settle)
};

class TimingPanel final : public Panel {
public:
    TimingPanel(TimingHistory& history, RunInputs& inputs, LiveOptions& live, const DeviceInfo& device,
                const CompareState& compare)
        : history_(history), inputs_(inputs), live_(live), device_(device), compare_(compare) {}
    const char* title() const override { return "Timing"; }
    DockPlace dock_place() const override { return {DockSlot::BelowRight, false}; }
    void draw() override;
    // The times, the comparison and the per-device lines, without the timing options.
    void draw_presented() override;
    // The history plot as drawn in the last frame (tests): how many runs, and the hovered run's details.
    struct DrawnHistory {
        bool valid = false;
        float x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // the plot area on screen
        size_t points = 0;
        std::string hover;
    };
    const DrawnHistory& drawn_history() const { return drawn_history_; }
    // A `devices:` run's per-device lines as drawn in the last frame.
    const DrawnSplit& drawn_split() const { return drawn_split_; }
    // The frame budget's rows drawn in the last frame, by name (empty while it is folded); open_budget unfolds it
    // in the next frame (tests).
    const std::vector<std::string>& drawn_budget() const { return drawn_budget_; }
    void open_budget() { open_budget_ = true; }

    // The last run's times and bandwidth (presentation mode too); false when nothing has been timed yet.
    bool draw_summary();

private:
    void draw_history();  // the plot of past runs and their table
    void draw_comparison();  // side by side: each variant's median time beside the main kernel's
    void draw_budget(const TimingSample& last);

    DrawnHistory drawn_history_;
    DrawnSplit drawn_split_;
    std::vector<std::string> drawn_budget_;
    bool open_budget_ = false;
    TimingHistory& history_;
    RunInputs& inputs_;
    LiveOptions& live_;
    const DeviceInfo& device_;
    const CompareState& compare_;
};

}  // namespace cp::ui
