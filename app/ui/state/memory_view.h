// The window's memory view (issue 23), ImGui-free: the Memory switch and the recording it asked for, the editor
// gutter's text per access line, and the warp picture's cells (a request's lanes over 128-byte lines and 32-byte
// sectors, or over the 32 shared-memory banks), computed here so that tests check them without a window.
#pragma once

#include "core/engine/memory_figures.h"

#include <cstdint>
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
};

// The text of one figure: global "8.0 sectors/req (ideal 4) x2" (x: how many times the ideal, left out at 1),
// shared "4-way bank conflict" or "no bank conflict"; "load " / "store " in front when `with_kind`, and
// ", 16/32 lanes" when on average more than one lane in 32 sat out (a short last warp alone does not say it).
std::string memory_figure_text(const MemoryFigures& f, bool with_kind);
MemoryGrade memory_figure_grade(const MemoryFigures& f);
// One mark per source line with figures (a line with a load and a store joins them, the worse grade wins).
std::vector<MemoryLineMark> memory_line_marks(const std::vector<MemoryFigures>& figures);

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
    // The warp picture's choice: the warp, the access (index into result->warps of that warp), the request.
    WarpId warp;
    int access = 0;
    int request = 0;

    // Takes a recording: figures, marks, and the picture's choice kept where it still exists.
    void take(MemoryRecording recording);
    // The kept warps' accesses of `warp`, in result->warps order (empty when it was not kept).
    std::vector<const WarpSiteDetail*> accesses_of(const WarpId& warp) const;
    const WarpSiteDetail* chosen_access() const;
    // Index (as `access`) of the chosen warp's access that wastes most: sectors beyond the ideal plus bank
    // conflicts, over its kept requests; the first one on a tie, 0 when nothing is kept. The picture opens there.
    int worst_access() const;
};

}  // namespace cp::ui
