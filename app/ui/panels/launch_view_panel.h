// Launch view panel: the launch drawn over the first image output (block boundaries; colour by blockIdx, warp,
// lane, thread in block or SM; never-written elements hatched red), hover for the owning block/thread/warp/lane,
// measured coverage counts, and the trace's timeline (one lane per SM or CPU worker, blocks as bars; hover a
// bar to highlight its block on the output).
#pragma once

#include "ui/charts.h"
#include "ui/panels/panel.h"
#include "ui/state/launch_overlay.h"
#include "ui/state/live_runner.h"
#include "ui/state/output_views.h"
#include "ui/state/run_inputs.h"

#include <optional>

namespace cp::ui {

class LaunchViewPanel final : public Panel {
public:
    LaunchViewPanel(OutputViews& views, const std::optional<RunOutcome>& latest, RunInputs& inputs, const DeviceInfo& device)
        : views_(views), latest_(latest), inputs_(inputs), device_(device) {}
    const char* title() const override { return "Launch view"; }
    DockPlace dock_place() const override { return {DockSlot::Main, false}; }
    void draw() override;

    // Milliseconds the last overlay rebuild took (done once per run or setting, not per frame).
    double last_rebuild_ms() const { return rebuild_ms_; }

private:
    void draw_options();
    void draw_overlay(const OutputView& view, const RunReport& report);
    void draw_timeline(const LaunchTrace& trace);

    OutputViews& views_;
    const std::optional<RunOutcome>& latest_;
    RunInputs& inputs_;
    const DeviceInfo& device_;

    OverlaySettings settings_;
    // What the overlay is drawn from: the launch's shape, the settings and the picture's size; the run itself
    // only when it measured something drawn (coverage, a trace), so live re-runs of one launch reuse it.
    struct Key {
        uint64_t job = 0;
        Dim3 grid, block;
        OverlaySettings settings;
        int width = 0, height = 0;
        bool operator==(const Key&) const = default;
    };
    Key overlay_key_;
    render::Texture overlay_;
    uint64_t timeline_job_ = 0;
    TimelineData timeline_;                      // the latest run's trace in lanes (points into latest_'s report)
    std::optional<uint64_t> highlighted_block_;  // hovered on the timeline
    double rebuild_ms_ = 0;
};

}  // namespace cp::ui
