// The window's memory view (issue 23), ImGui-free: the Memory switch and the recording it asked for, the editor
// gutter's text per access line, and the warp picture's cells (a request's lanes over 128-byte lines and 32-byte
// sectors, or over the 32 shared-memory banks), computed here so that tests check them without a window.
#pragma once

#include "core/engine/memory_figures.h"
#include "ui/state/launch_overlay.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cp::ui {

// How far an access line is from ideal, as its gutter colour says it.
enum class MemoryGrade { Ideal, Near, Far };  // green, yellow (up to 2x the ideal), red

// One access line's gutter text ("32.0 sectors/req (ideal 4) x8", "4-way bank conflict").
struct MemoryLineMark {
    int line = 0;
    std::string text;
    MemoryGrade grade = MemoryGrade::Ideal;
    std::string worst;  // the worst figure's text alone (with its kind when the line has several): a narrow editor's
    std::string badge;  // the worst figure in a word, for the gutter's own column: "x8", "8-way", "ideal"
};

// The text of one figure: global "8.0 sectors/req (ideal 4) x2" (x: how many times the ideal, left out at 1),
// shared "4-way bank conflict" or "no bank conflict"; "load " / "store " in front when `with_kind`, and
// ", 16/32 lanes" when on average more than one lane in 32 sat out (a short last warp alone does not say it).
std::string memory_figure_text(const MemoryFigures& f, bool with_kind);
MemoryGrade memory_figure_grade(const MemoryFigures& f);
// One mark per source line with figures (a line with a load and a store joins them, the worse grade wins).
std::vector<MemoryLineMark> memory_line_marks(const std::vector<MemoryFigures>& figures);

// Where an access line's text goes in the editor, so that it never covers code: the badge sits in a column the
// editor reserves at its right (outside the code's area); the full text goes after the code only where the line
// leaves room for it at full text size (a projector's back row reads it), else nowhere (the badge's hover has
// it). Screen pixels, computed here so that tests check the geometry without a window.
struct GutterSpan {
    int row = 0;  // the 1-based line it is drawn on (the access line, or the one under it)
    std::string label;
    float x0 = 0, x1 = 0;
};
// `code_end(row)`: where that line's code ends on screen; `width(text)`: a text's width at full size; `right`: the
// code area's right edge (the reserved column starts there); `gap`: the space kept after the code. Tries the
// whole text on the line, then the worst figure alone, then "^ " and the worst figure on the next line when
// `next_free` (a line without figures of its own, often a closing brace); nullopt when none fits.
std::optional<GutterSpan> place_gutter_text(const MemoryLineMark& mark, const std::function<float(int row)>& code_end,
                                            const std::function<float(const std::string&)>& width, float right,
                                            float gap, bool next_free);

// Picking a warp by pointing at the output (issue 23): the element under the mouse, the warp the launch's
// standard mapping gives it (1D: i = blockIdx.x * blockDim.x + threadIdx.x; 2D: pixel (x, y) is thread
// (x % bx, y % by) of block (x / bx, y / by), as the inspector says), and whether the recording covers it.
struct WarpPick {
    std::optional<WarpId> warp;  // nullopt: no thread of the launch maps to the element
    int lane = 0;
    std::string element;       // "y[300]", "out(12, 7)"
    uint64_t byte_offset = 0;  // the element's offset in its buffer: the recording confirms the store there
    bool recorded = false;     // its block is in the recording's sample (all blocks, or the first ones)
    std::string text;          // one line for the inspector: what a click does, or why it does nothing
};
// `owner`: owner_of_element / owner_of_pixel for the element; `recording`: the figures shown (null: none yet).
WarpPick warp_pick(const std::optional<PixelOwner>& owner, const std::string& element, uint64_t byte_offset,
                   const MemoryRecording* recording);
// The elements the chosen warp's threads own under the same standard mapping, for the output to outline: a 1D
// launch's indices [first, last] (and their box in a picture `width` wide), or a 2D launch's pixel box (cut at the
// picture's right edge, `width` > 0).
struct WarpFootprint {
    bool valid = false;  // false: the warp has no thread in the launch
    uint64_t first = 0, last = 0;
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // the pixels' box, inclusive (a picture's)
};
WarpFootprint warp_footprint(const WarpId& warp, Dim3 grid, Dim3 block, int width);
// After the picked warp's recording: whether its lane stored to the element (a global store at that offset),
// in words. The standard mapping is a guess about the kernel; the recording says whether it held.
std::string confirm_pick(const WarpPick& pick, const std::vector<const WarpSiteDetail*>& accesses);

// One cell of the warp picture: a 4-byte slot of a 128-byte line (global) or a word in a bank (shared).
struct WarpCell {
    int row = 0;
    int column = 0;          // global: 4-byte slot in the line (0-31; sector = column / 8); shared: bank
    std::vector<int> lanes;  // the lanes whose access covers it, lowest first
};

struct WarpPicture {
    MemorySpace space = MemorySpace::Global;
    // Global: one row per 128-byte line touched, its byte offset from the first one; shared: one row per
    // wavefront (a bank's n-th distinct word is in row n).
    std::vector<uint64_t> row_offsets;
    std::vector<WarpCell> cells;
    std::vector<uint32_t> row_sectors;  // global: per row, bit s = sector s of the line is touched
    std::vector<bool> bank_conflicted;  // shared: per bank, more than one distinct word (32 entries)
    uint32_t active = 0;                // the request's active mask
    int active_lanes = 0;
    uint64_t sectors = 0, ideal_sectors = 0;  // global
    int wavefronts = 0;                       // shared: the most distinct words of one bank (1: no conflict)
    std::string legend;                       // in words what is seen
};

// "0-31", "0-15, 24", "none": a lane mask as ranges.
std::string lane_ranges(uint32_t mask);
// The picture of one request: built from its lanes' addresses alone (the counts are the request's own).
WarpPicture warp_picture(const WarpRequest& request, MemorySpace space);

// The switch, the recording it asked for, and what the picture shows.
struct MemoryViewState {
    bool enabled = false;    // the switch: nothing of this runs when it is off
    bool recording = false;  // a recording job is with the runner
    // What the shown figures were recorded for (the workspace's run key) and what is wanted now.
    std::string recorded_key, wanted_key;
    std::optional<MemoryRecording> result;
    std::string error;                     // why the last recording failed ("" when it did not)
    double requested_at = 0, took_ms = 0;  // the switch or change that asked, and switch-to-figures time
    std::vector<MemoryLineMark> marks;     // the gutter's, from `result`
    bool large = false;                    // the warp picture in a window of its own over most of the screen
    // The warp picture's choice: the warp, the access (index into result->warps of that warp), the request.
    WarpId warp;
    int access = 0;
    int request = 0;
    // The last pick from the output (shown in the panel): what it chose and whether the recording confirms it, or
    // why nothing was chosen. Cleared when the warp is chosen another way.
    std::optional<WarpPick> picked;
    std::string pick_note;
    // The warp the recording in flight keeps (set when it is asked for), and the one `result` kept.
    WarpId recording_warp, result_warp;

    // Takes a recording: figures, marks, and the picture's choice kept where it still exists (a warp that was not
    // recorded stays chosen: the panel says why it has no picture rather than showing another warp).
    void take(MemoryRecording recording);
    // Chooses the picture's warp; the access line shown now is followed (the same line, space and kind, once the
    // new warp's recording has it). The next recording keeps this warp.
    void choose_warp(const WarpId& w);
    // Back to block 0's warp 0 with nothing followed or picked (another kernel's launch).
    void forget_choice();
    // A pick from the output: chooses its warp when it names one in the recording's sample; pick_note says what
    // happened either way. True when the warp changed.
    bool pick(const WarpPick& p);
    // Why the chosen warp has no kept access ("" when it has): past the recorded blocks, or no access made.
    std::string missing_warp_reason() const;
    // The kept warps' accesses of `warp`, in result->warps order (empty when it was not kept).
    std::vector<const WarpSiteDetail*> accesses_of(const WarpId& warp) const;
    const WarpSiteDetail* chosen_access() const;
    // Index (as `access`) of the chosen warp's access that wastes most: sectors beyond the ideal plus bank
    // conflicts, over its kept requests; the first one on a tie, 0 when nothing is kept. The picture opens there.
    int worst_access() const;

private:
    struct Follow {
        int line = 0;
        MemorySpace space = MemorySpace::Global;
        bool store = false;
    };
    std::optional<Follow> follow_;  // the access line to show once the chosen warp's recording comes
    void apply_follow();            // chooses follow_'s access in the chosen warp's, when it is kept
    void refresh_pick_note();       // pick_note from `picked` and what the recording shows of it
};

}  // namespace cp::ui
