// Memory panel (issue 23): the switch that records every global and shared load and store after each run, the
// per-line figures as a table, and the warp picture: one warp's request at one access line, its 32 lanes over
// 128-byte lines cut into 32-byte sectors (global) or over the 32 shared-memory banks, stepped through in order.
#pragma once

#include "ui/panels/panel.h"
#include "ui/state/memory_view.h"

#include <string>

namespace cp::ui {

class MemoryPanel final : public Panel {
public:
    explicit MemoryPanel(MemoryViewState& state) : state_(state) {}
    const char* title() const override { return "Memory"; }
    DockPlace dock_place() const override { return {DockSlot::BelowLeft, false}; }
    void draw() override;

    // What the last frame drew (tests, screenshots): the picture's legend ("" when none was drawn) and its area.
    struct Drawn {
        std::string legend;
        std::string status;
        WarpPicture picture;
        float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    };
    const Drawn& drawn() const { return drawn_; }

private:
    void draw_table();
    void draw_choice();
    void draw_picture(const WarpRequest& request, const WarpSiteDetail& access);

    MemoryViewState& state_;
    Drawn drawn_;
};

}  // namespace cp::ui
