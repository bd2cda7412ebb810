// Code panel: the open kernel's PTX and SASS side by side for the device's architecture or any other, with
// the resource facts ptxas reports (registers, spills, stack, shared, barriers) and the occupancy they allow
// at the current block. Lines link both ways: the editor's line (or a clicked instruction's) highlights the
// instructions it compiled to in both listings, and clicking an instruction moves the editor to its line.
// The listings are made off the UI thread (ui/state/code_view.h); the panel only draws what is ready.
#pragma once

#include "core/types.h"
#include "ui/panels/panel.h"
#include "ui/state/code_view.h"

#include <functional>
#include <string>
#include <vector>

namespace cp::ui {

struct CodePanelInputs {
    const DeviceInfo* device = nullptr;           // the device in use (its arch is the default)
    std::function<int()> block_threads;           // the current block's threads (0: unknown)
    std::function<std::string(int)> source_line;  // the editor's text of a 1-based line
    std::vector<int> archs;                       // what NVRTC can compile for (75, 80, ... 121)
    std::function<std::vector<std::string>()> compare_lessons;  // the open lesson's `compare:` variants
};

class CodePanel final : public Panel {
public:
    CodePanel(CodeView& view, CodePanelInputs inputs) : view_(view), in_(std::move(inputs)) {}
    const char* title() const override { return "Code"; }
    DockPlace dock_place() const override { return {DockSlot::Main, false}; }
    void draw() override;
    bool focus_on_appearing() const override { return false; }
    // Set by draw(); the workspace clears it each frame after looking: listings are only made for a panel drawn.
    bool drawn_recently = false;

    // For tests: the rows highlighted in the last frame (listing line indices), per listing.
    const std::vector<size_t>& highlighted_ptx() const { return highlighted_[0]; }
    const std::vector<size_t>& highlighted_sass() const { return highlighted_[1]; }
    // The rows drawn in the last frame (0: PTX, 1: SASS), with where, in screen pixels, for tests that click one.
    struct DrawnRow {
        size_t index = 0;  // in the listing's lines
        float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    };
    const std::vector<DrawnRow>& drawn_rows(int which) const { return rows_[which]; }

private:
    void draw_facts(const MachineCode& code);
    void draw_listing(int which, const CodeListing& listing, float height);
    void draw_compare_choice(const std::string& arch);
    // The comparison: the other side's facts, the opcodes that differ most, and the two listings aligned.
    void draw_against(const MachineCode& code, const MachineCode& other);

    CodeView& view_;
    CodePanelInputs in_;
    std::vector<size_t> highlighted_[2];
    std::vector<DrawnRow> rows_[2];
    const CodeListing* lit_of_[2] = {nullptr, nullptr};  // what highlighted_ was worked out for
    int lit_line_[2] = {0, 0};
    int scrolled_to_[2] = {0, 0};  // the picked line each listing last scrolled to
    // The last comparison's alignment, of these two listings.
    const MachineCode* diffed_a_ = nullptr;
    const MachineCode* diffed_b_ = nullptr;
    ListingDiff diff_;
};

}  // namespace cp::ui
