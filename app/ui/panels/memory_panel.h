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
        std::string missing;  // why the chosen warp has no picture ("" when it has one)
        WarpPicture picture;
        float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
        bool large = false;                    // drawn in the large window
        float area_w = 0;                      // the width the picture had
        float cell_w = 0, cell_h = 0;          // one cell (a bank's word, or 4 bytes of a line)
        int columns = 0;                       // cells across (shared: banks a band, 32 / 16 / 8)
        float font_size = 0, number_size = 0;  // the text's size and the lane numbers' (equal: full size)
        bool numbered = false;                 // each cell has its lane's number (else a sector names its lanes)
        std::vector<std::string> way_labels;   // shared: the "4-way" labels under the colliding banks
    };
    const Drawn& drawn() const { return drawn_; }

private:
    void draw_table();
    void draw_choice();
    void draw_picture(const WarpRequest& request, const WarpSiteDetail& access, bool large);
    void draw_shared(const WarpPicture& p);
    void draw_global(const WarpPicture& p);
    void draw_key(bool global, bool numbered);

    MemoryViewState& state_;
    Drawn drawn_;
};

}  // namespace cp::ui
