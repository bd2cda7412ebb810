// Streams panel: for a lesson with `streams:`, the last run's operations on a per-stream timeline (one lane per
// stream; host -> device copies, kernels and device -> host copies in three colours with a legend; time in ms;
// hover a bar for its chunk, operation, start and duration) and the S-stream total against one stream's.
#pragma once

#include "ui/panels/panel.h"
#include "ui/state/live_runner.h"
#include "ui/state/streams_timeline.h"

#include <optional>
#include <string>

namespace cp::ui {

class StreamsPanel final : public Panel {
public:
    explicit StreamsPanel(const std::optional<RunOutcome>& latest) : latest_(latest) {}
    const char* title() const override { return "Streams"; }
    DockPlace dock_place() const override { return {DockSlot::BelowRight, false}; }
    void draw() override;

    // What the last frame drew (tests): the layout, how many bars reached the screen, the hovered bar's text.
    struct Drawn {
        bool timeline = false;
        StreamsTimeline layout;
        size_t bars_drawn = 0;
        float x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // the plot area on screen
        std::string hover;
    };
    const Drawn& drawn() const { return drawn_; }

private:
    const std::optional<RunOutcome>& latest_;
    Drawn drawn_;
};

}  // namespace cp::ui
