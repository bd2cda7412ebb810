// Debug panel (issue 39): one block of the kernel stepped through on the CPU backend. The block and the warp
// watched, the moves (back, step, continue to a breakpoint, the next __syncthreads()) and a time slider over the
// recorded run; the warp-watch grid (a row per thread: its line, its state, every variable in scope, the values a
// step changed highlighted; a click on a value goes to the step that set it); each shared array at the stop as a
// grid by index (2-D as rows; the last writer on hover, or shown instead of the values; a click goes to that
// store); and the buffer elements the block touched. Breakpoints are set in the Editor's line numbers or with F9.
#pragma once

#include "core/types.h"
#include "ui/panels/panel.h"
#include "ui/state/debug_view.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cp::ui {

struct DebugPanelActions {
    std::function<std::optional<Dim3>()> grid;           // the last run's grid (none before a run)
    std::function<std::optional<Dim3>()> faulted_block;  // the block the last run faulted in, if it did
    std::function<void()> debug_faulted;                 // make it the panel's block
};

class DebugPanel final : public Panel {
public:
    DebugPanel(DebugViewState& state, DebugPanelActions actions) : state_(state), actions_(std::move(actions)) {}
    const char* title() const override { return "Debug"; }
    DockPlace dock_place() const override { return {DockSlot::Main, false}; }
    bool focus_on_appearing() const override { return false; }
    void draw() override;

    // What the last frame drew (tests, screenshots).
    struct Cell {
        float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
        std::string text;
        bool changed = false;
    };
    struct Drawn {
        std::string status;                    // the line above the grid ("round 9 of 43 · ...", or why none)
        std::vector<std::string> header;       // the grid's column titles
        std::vector<std::vector<Cell>> rows;   // the grid's cells as drawn, row by row
        std::map<std::string, std::vector<Cell>> shared;  // each shared array's cells, row-major
        std::string touched;
        std::map<std::string, Cell> buttons;   // "Step", "Back", "Continue", "Barrier", "Start", "End"
    };
    const Drawn& drawn() const { return drawn_; }
    bool drawn_recently = false;  // set by draw(), cleared by the workspace each frame: the tab is in front

private:
    void draw_controls();
    void draw_grid();
    void draw_shared();
    void note_button(const std::string& name);

    DebugViewState& state_;
    DebugPanelActions actions_;
    Drawn drawn_;
    bool show_writers_ = false;
    char watch_text_[256] = {};
};

}  // namespace cp::ui
