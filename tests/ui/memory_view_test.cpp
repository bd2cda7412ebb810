// The window's memory view (issue 23): the gutter text and grade of per-line figures and the warp picture's cells
// (ui/state/memory_view.h), and the real window on the CPU backend: the Memory switch records the strided lesson,
// the editor's gutter shows the load's sectors per request and the Memory panel draws warp 0's request; on a CUDA
// device, the time from the switch to the figures at the strided lesson's default size. Expected values are worked
// out here from the access pattern.
#include "ui_test_support.h"

#include "core/cuda/cuda_backend_factory.h"
#include "core/engine/backend.h"
#include "ui/state/memory_view.h"
#include "test_paths.h"
#include "core/backends/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <set>
#include <string>

using namespace cp;
using namespace cp::uitest;

namespace {

MemoryFigures global_figures(int line, bool store, uint64_t requests, uint64_t sectors, uint64_t ideal,
                             uint64_t lanes) {
    MemoryFigures f;
    f.line = line;
    f.store = store;
    f.requests = requests;
    f.sectors = sectors;
    f.ideal_sectors = ideal;
    f.active_lanes = lanes;
    return f;
}

// The window on a lesson with the CPU backend at 1920x1080, text 1.75, the Memory switch on from the start
// (--memory) and `sets` applied.
ui::AppOptions recording_window(const char* file, std::vector<std::pair<std::string, std::string>> sets) {
    ui::AppOptions o = headless_options(file);
    o.width = 1920;
    o.height = 1080;
    o.text_size = 1.75f;
    o.backend = "cpu";
    o.memory = true;
    o.sets = std::move(sets);
    return o;
}

// The memory view's state in a few words, for a wait that gave up.
std::string memory_state(ui::Workspace& ws) {
    const auto& m = ws.memory();
    return std::string(m.recording ? "recording" : "not recording") + ", " +
           (m.result ? "a result" : "no result") + ", recorded key " + (m.recorded_key.empty() ? "none" : "set") +
           (m.error.empty() ? "" : ", error: " + m.error);
}

// Frames until the first recording is on screen (or 50 frames, after which the caller's check says why).
void until_recorded(ui::AppHost& host) {
    ui::Workspace& ws = host.workspace();
    frames_until(host, [&] { return ws.memory().result && !ws.memory().recording; }, "the memory recording", 50,
                 [&] { return memory_state(ws); });
}

// The Memory panel shown and its switch turned on, as its checkbox does, then frames until the figures are in (a
// CUDA recording of a large launch: up to a minute).
void switch_on_and_wait(ui::AppHost& host) {
    ui::Workspace& ws = host.workspace();
    ws.show_panel("Memory");
    ws.memory().enabled = true;
    const auto start = std::chrono::steady_clock::now();
    while (!(ws.memory().result && !ws.memory().recording) &&
           std::chrono::steady_clock::now() - start < std::chrono::seconds(60))
        host.frame();
}

// Every gutter text drawn in the last frame stays off the code: a badge right of the code area, a whole text
// after its row's code and left of the column.
void expect_gutter_clear_of_code(ui::Workspace& ws) {
    for (const auto& g : ws.editor_panel().gutter()) {
        SCOPED_TRACE("line " + std::to_string(g.line) + " drawn on " + std::to_string(g.row) + ": " + g.text);
        if (g.badge) {
            EXPECT_GE(g.x0, g.code_right);
        } else {
            EXPECT_GT(g.x0, g.code_x1);  // the rects [code_x0, code_x1] and [x0, x1] of one row do not meet
            EXPECT_LE(g.x1, g.code_right);
        }
        EXPECT_GT(g.code_x1, g.code_x0 - 1);
    }
}

std::string one_decimal(double v) {
    char s[32];
    std::snprintf(s, sizeof s, "%.1f", v);
    return s;
}

}  // namespace

TEST(MemoryView, GutterTextSaysSectorsPerRequestAgainstIdealAndGradesIt) {
    // 2 requests of 32 lanes: 16 sectors where 8 would do: 8.0 per request, ideal 4, twice the ideal.
    const auto twice = global_figures(14, false, 2, 16, 8, 64);
    EXPECT_EQ(ui::memory_figure_text(twice, false), "8.0 sectors/req (ideal 4) x2");
    EXPECT_EQ(ui::memory_figure_grade(twice), ui::MemoryGrade::Near);
    const auto ideal = global_figures(14, true, 3, 12, 12, 96);
    EXPECT_EQ(ui::memory_figure_text(ideal, true), "store 4.0 sectors/req (ideal 4)");
    EXPECT_EQ(ui::memory_figure_grade(ideal), ui::MemoryGrade::Ideal);
    const auto far = global_figures(9, false, 1, 32, 4, 32);
    EXPECT_EQ(ui::memory_figure_grade(far), ui::MemoryGrade::Far);
    // Shared: 3 requests with 9 extra wavefronts: 4-way on average; half the lanes active.
    MemoryFigures shared;
    shared.line = 20;
    shared.space = MemorySpace::Shared;
    shared.requests = 3;
    shared.bank_conflicts = 9;
    shared.active_lanes = 48;
    EXPECT_EQ(ui::memory_figure_text(shared, false), "4-way bank conflict, 16/32 lanes");
    EXPECT_EQ(ui::memory_figure_grade(shared), ui::MemoryGrade::Far);
    shared.bank_conflicts = 0;
    EXPECT_EQ(ui::memory_figure_text(shared, false), "no bank conflict, 16/32 lanes");

    // One mark per line: line 14's load and store joined, named, the worse grade.
    const auto marks = ui::memory_line_marks({ideal, twice, far, shared});
    ASSERT_EQ(marks.size(), 3u);
    EXPECT_EQ(marks[0].line, 9);
    EXPECT_EQ(marks[1].line, 14);
    EXPECT_EQ(marks[1].text, "load 8.0 sectors/req (ideal 4) x2; store 4.0 sectors/req (ideal 4)");
    EXPECT_EQ(marks[1].grade, ui::MemoryGrade::Near);
    EXPECT_EQ(marks[2].line, 20);
}

TEST(MemoryView, ThePictureOpensOnTheAccessThatWastesMost) {
    // Warp 0 keeps three accesses: a coalesced load (4 sectors, ideal 4), a shared store with 7 conflicts per
    // request over 2 requests (14), and a strided load with 32 sectors for an ideal 4 (28): the last wastes most.
    ui::MemoryViewState s;
    MemoryRecording m;
    const auto detail = [](uint64_t site, MemorySpace space, uint64_t sectors, uint64_t ideal, uint64_t conflicts,
                           int requests) {
        WarpSiteDetail d;
        d.warp = WarpId{0, 0};
        d.site = site;
        d.space = space;
        for (int i = 0; i < requests; ++i) {
            WarpRequest r;
            r.active = 0xFFFFFFFFu;
            r.sectors = sectors, r.ideal_sectors = ideal, r.bank_conflicts = conflicts;
            d.requests.push_back(r);
        }
        d.requests_total = d.requests.size();
        return d;
    };
    m.warps = {detail(1, MemorySpace::Global, 4, 4, 0, 1), detail(2, MemorySpace::Shared, 0, 0, 7, 2),
               detail(3, MemorySpace::Global, 32, 4, 0, 1)};
    s.take(m);
    EXPECT_EQ(s.worst_access(), 2);
    m.warps.pop_back();  // without it, the conflicting store
    s.take(m);
    EXPECT_EQ(s.worst_access(), 1);
    m.warps.resize(1);  // nothing wasted: the first
    s.take(m);
    EXPECT_EQ(s.worst_access(), 0);
}

TEST(MemoryView, LaneRangesNameTheActiveLanes) {
    EXPECT_EQ(ui::lane_ranges(0xFFFFFFFFu), "0-31");
    EXPECT_EQ(ui::lane_ranges(0x0000FFFFu | (1u << 24)), "0-15, 24");
    EXPECT_EQ(ui::lane_ranges(0x55u), "0, 2, 4, 6");
    EXPECT_EQ(ui::lane_ranges(0), "none");
}

TEST(MemoryView, AGlobalPictureHasOneRowPerLineTouchedAndItsSectorsMarked) {
    // 20 active lanes (0-19) reading floats 3 apart from byte 64 of a line: lane l at 64 + 12 l.
    WarpRequest r;
    std::set<uint64_t> sectors, lines;
    for (int l = 0; l < 20; ++l) {
        r.active |= 1u << l;
        r.address[size_t(l)] = 0x10000 + 64 + 12 * l;
        r.size[size_t(l)] = 4;
        sectors.insert(r.address[size_t(l)] / 32);
        lines.insert(r.address[size_t(l)] / 128);
    }
    r.sectors = sectors.size();
    r.ideal_sectors = (20 * 4 + 31) / 32;
    const ui::WarpPicture p = ui::warp_picture(r, MemorySpace::Global);
    ASSERT_EQ(p.row_offsets.size(), lines.size());  // 64 .. 64 + 228 + 4: bytes 64-295, 3 lines
    EXPECT_EQ(p.row_offsets[1], 128u);
    ASSERT_EQ(p.cells.size(), 20u);
    // Lane 7 at 64 + 84 = 148: line 1, slot (148 - 128) / 4 = 5.
    bool found = false;
    for (const ui::WarpCell& c : p.cells)
        if (c.lanes == std::vector<int>{7}) {
            found = true;
            EXPECT_EQ(c.row, 1);
            EXPECT_EQ(c.column, 5);
        }
    EXPECT_TRUE(found);
    uint64_t marked = 0;
    for (uint32_t bits : p.row_sectors) marked += uint64_t(__builtin_popcount(bits));
    EXPECT_EQ(marked, sectors.size());
    EXPECT_EQ(p.active_lanes, 20);
    EXPECT_NE(p.legend.find("lanes 0-19 touch " + std::to_string(sectors.size()) + " sectors in 3 lines"),
              std::string::npos)
        << p.legend;
    EXPECT_NE(p.legend.find("80 bytes would touch 3"), std::string::npos) << p.legend;
    EXPECT_NE(p.legend.find("lanes 20-31 inactive"), std::string::npos) << p.legend;
}

TEST(MemoryView, ASharedPictureStacksABanksDifferentWordsAndSharesOneWord) {
    // Lanes 0-15 read a column of a 32-wide float tile (word 32 l: all bank 0); lanes 16-31 all read word 5.
    WarpRequest r;
    r.active = 0xFFFFFFFFu;
    for (int l = 0; l < 32; ++l) {
        r.address[size_t(l)] = (uint64_t(1) << 40) + (l < 16 ? 32 * l : 5) * 4;
        r.size[size_t(l)] = 4;
    }
    r.bank_conflicts = 15;  // bank 0 holds 16 words: 16 wavefronts
    const ui::WarpPicture p = ui::warp_picture(r, MemorySpace::Shared);
    EXPECT_EQ(p.wavefronts, 16);
    EXPECT_EQ(p.row_offsets.size(), 16u);
    ASSERT_EQ(p.bank_conflicted.size(), 32u);
    EXPECT_TRUE(p.bank_conflicted[0]);
    EXPECT_FALSE(p.bank_conflicted[5]);
    ASSERT_EQ(p.cells.size(), 17u);  // 16 words in bank 0, one in bank 5
    for (const ui::WarpCell& c : p.cells)
        if (c.column == 5) {
            EXPECT_EQ(c.lanes.size(), 16u);  // one broadcast
        }
    EXPECT_NE(p.legend.find("bank 0 holds 16 different words: a 16-way conflict, 15 extra wavefronts"),
              std::string::npos)
        << p.legend;
}

// The gutter's whole text goes after the code only where it fits, never over it: a sweep of code lengths in the
// metrics of 1920x1080 at text size 1.75 (a mono character ~13.7 px, the side column's code area ~65-560 px).
TEST(MemoryView, TheGutterTextNeverCoversTheCodeOfItsLine) {
    ui::MemoryLineMark m;
    m.line = 30;
    m.text = "load 31.2 sectors/req (ideal 3.9) x8; store 3.9 sectors/req (ideal 3.9)";
    m.worst = "load 31.2 sectors/req (ideal 3.9) x8";
    const float char_w = 13.7f, text_x0 = 65, right = 560, gap = 14;
    const auto width = [](const std::string& t) { return float(t.size()) * 11.0f + 10; };  // proportional type
    int placed_on_line = 0, placed_under = 0, none = 0;
    for (int chars = 0; chars <= 80; ++chars)
        for (int next_chars : {1, 40})
            for (bool next_free : {true, false}) {
                const auto code_end = [&](int row) {
                    return text_x0 + char_w * float(row == m.line ? chars : row == m.line + 1 ? next_chars : 0);
                };
                const auto span = ui::place_gutter_text(m, code_end, width, right, gap, next_free);
                if (!span) {
                    ++none;
                    continue;
                }
                SCOPED_TRACE("code of " + std::to_string(chars) + " characters, the next line's " +
                             std::to_string(next_chars));
                ASSERT_TRUE(span->row == m.line || (next_free && span->row == m.line + 1)) << span->row;
                EXPECT_GE(span->x0, code_end(span->row) + gap) << span->label;  // after the code, with a gap
                EXPECT_LE(span->x1, right);                                     // not under the column
                EXPECT_FLOAT_EQ(span->x1 - span->x0, width(span->label));       // at full size
                (span->row == m.line ? placed_on_line : placed_under)++;
            }
    // Each way is taken somewhere in the sweep: the whole text on a short line, "^" under a long one, nothing when
    // neither has room (a long line over a marked or long one).
    EXPECT_GT(placed_on_line, 0);
    EXPECT_GT(placed_under, 0);
    EXPECT_GT(none, 0);
    // A long line of code (60 characters run past the area) with a short free line under it: pointed at from there.
    const auto long_line = [&](int row) { return text_x0 + char_w * (row == m.line ? 60.0f : 1.0f); };
    const auto under = ui::place_gutter_text(m, long_line, width, right, gap, true);
    ASSERT_TRUE(under.has_value());
    EXPECT_EQ(under->row, m.line + 1);
    EXPECT_EQ(under->label, "^ " + m.worst);
    EXPECT_FALSE(ui::place_gutter_text(m, long_line, width, right, gap, false).has_value());
    // Where there is room the whole text, against the column.
    const auto short_line = [&](int) { return text_x0; };
    const auto whole = ui::place_gutter_text(m, short_line, width, 2000, gap, false);
    ASSERT_TRUE(whole.has_value());
    EXPECT_EQ(whole->label, m.text);
    EXPECT_FLOAT_EQ(whole->x1, 2000);
}

TEST(MemoryView, EachLineHasABadgeForTheGuttersColumn) {
    const auto marks = ui::memory_line_marks({global_figures(9, false, 1, 32, 4, 32),     // 8 times the ideal
                                              global_figures(14, false, 2, 12, 8, 64),    // 1.5 times
                                              global_figures(20, true, 3, 12, 12, 96)});  // ideal
    ASSERT_EQ(marks.size(), 3u);
    EXPECT_EQ(marks[0].badge, "x8");
    EXPECT_EQ(marks[1].badge, "x1.5");
    EXPECT_EQ(marks[2].badge, "ideal");
    MemoryFigures shared;
    shared.line = 5;
    shared.space = MemorySpace::Shared;
    shared.requests = 2;
    shared.bank_conflicts = 14;  // 8 wavefronts a request: 8-way
    shared.active_lanes = 64;
    EXPECT_EQ(ui::memory_line_marks({shared})[0].badge, "8-way");
}

// The warp of an element under the launch's standard mapping, as the inspector names its thread; a warp outside
// the recorded blocks is said to be so and not chosen.
TEST(MemoryView, PickingAnElementNamesTheWarpThatWritesIt) {
    const Dim3 grid{4, 1, 1}, block{256, 1, 1};
    const uint64_t i = 600;  // block 600 / 256 = 2, thread 88: warp 2, lane 24
    MemoryRecording rec;
    rec.blocks_total = 4;
    rec.blocks_recorded = 4;
    const ui::WarpPick p = ui::warp_pick(ui::owner_of_element(i, true, grid, block), "y[600]", i * 4, &rec);
    ASSERT_TRUE(p.warp.has_value());
    EXPECT_EQ(p.warp->block, i / block.x);
    EXPECT_EQ(p.warp->warp, (i % block.x) / 32);
    EXPECT_EQ(p.lane, int(i % 32));
    EXPECT_TRUE(p.recorded);
    EXPECT_NE(p.text.find("block 2, warp 2 (lane 24 writes y[600])"), std::string::npos) << p.text;

    // 2D: pixel (20, 5) of a 70-wide picture in 16x16 blocks: block (1, 0), thread (4, 5): 4 + 16 * 5 = 84.
    const auto px = ui::owner_of_pixel(20, 5, 70, Dim3{5, 4, 1}, Dim3{16, 16, 1});
    const ui::WarpPick q = ui::warp_pick(px, "out(20, 5)", (5 * 70 + 20) * 4, nullptr);
    ASSERT_TRUE(q.warp.has_value());
    EXPECT_EQ(q.warp->block, 1u);
    EXPECT_EQ(q.warp->warp, (4u + 16u * 5u) / 32u);
    EXPECT_EQ(q.lane, int((4 + 16 * 5) % 32));

    // Past the launch's threads: no warp, said so.
    const ui::WarpPick none = ui::warp_pick(ui::owner_of_element(4 * 256, true, grid, block), "y[1024]", 4096, &rec);
    EXPECT_FALSE(none.warp.has_value());
    EXPECT_NE(none.text.find("no thread"), std::string::npos) << none.text;

    // The recording kept only block 0: block 2's warp is not in it. The pick says so and the picture keeps warp 0.
    rec.blocks_recorded = 1;
    rec.capped = true;
    const ui::WarpPick out = ui::warp_pick(ui::owner_of_element(i, true, grid, block), "y[600]", i * 4, &rec);
    EXPECT_FALSE(out.recorded);
    EXPECT_NE(out.text.find("not in the recording: it kept the first 1 of 4 blocks"), std::string::npos) << out.text;
    ui::MemoryViewState s;
    s.take(rec);
    EXPECT_FALSE(s.pick(out));
    EXPECT_EQ(s.warp, (WarpId{0, 0}));
    EXPECT_EQ(s.pick_note, out.text);
    EXPECT_FALSE(none.recorded);
    EXPECT_FALSE(s.pick(none));
    EXPECT_EQ(s.warp, (WarpId{0, 0}));
}

// The output outlines the chosen warp where the standard mapping puts its threads.
TEST(MemoryView, AWarpsFootprintIsItsThreadsElementsOrPixels) {
    // 1D, blocks of 100: block 3's warp 3 is threads 96-99 (a short last warp): elements 396-399.
    auto f = ui::warp_footprint(WarpId{3, 3}, Dim3{5, 1, 1}, Dim3{100, 1, 1}, 0);
    ASSERT_TRUE(f.valid);
    EXPECT_EQ(f.first, 3u * 100 + 96);
    EXPECT_EQ(f.last, 3u * 100 + 99);
    // In a picture 64 wide: elements 396-399 are row 6, columns 12-15.
    f = ui::warp_footprint(WarpId{3, 3}, Dim3{5, 1, 1}, Dim3{100, 1, 1}, 64);
    EXPECT_EQ(f.x0, 396 % 64);
    EXPECT_EQ(f.x1, 399 % 64);
    EXPECT_EQ(f.y0, 396 / 64);
    EXPECT_EQ(f.y1, 396 / 64);
    EXPECT_FALSE(ui::warp_footprint(WarpId{3, 4}, Dim3{5, 1, 1}, Dim3{100, 1, 1}, 0).valid);  // no 5th warp
    EXPECT_FALSE(ui::warp_footprint(WarpId{5, 0}, Dim3{5, 1, 1}, Dim3{100, 1, 1}, 0).valid);  // no 6th block
    // 2D, blocks of 16 x 16 in a 3 x 2 grid: block 4 is (1, 1); warp 3 is threads 96-127: rows 6-7 of the block.
    f = ui::warp_footprint(WarpId{4, 3}, Dim3{3, 2, 1}, Dim3{16, 16, 1}, 40);
    ASSERT_TRUE(f.valid);
    EXPECT_EQ(f.x0, 16);
    EXPECT_EQ(f.x1, 31);
    EXPECT_EQ(f.y0, 16 + 96 / 16);
    EXPECT_EQ(f.y1, 16 + 127 / 16);
    // Block (2, 0) of the same grid in a picture 40 wide: columns 32-47 cut at 39.
    f = ui::warp_footprint(WarpId{2, 0}, Dim3{3, 2, 1}, Dim3{16, 16, 1}, 40);
    EXPECT_EQ(f.x0, 32);
    EXPECT_EQ(f.x1, 39);
}

namespace {

// One kept access of `warp`: a request whose lane l accesses `offset(l)` bytes into region `region`.
WarpSiteDetail kept_access(WarpId warp, int line, MemorySpace space, bool store, uint64_t region,
                           const std::function<uint64_t(int)>& offset) {
    WarpSiteDetail d;
    d.warp = warp;
    d.line = line;
    d.space = space;
    d.store = store;
    WarpRequest r;
    r.active = 0xFFFFFFFFu;
    for (int l = 0; l < 32; ++l) {
        r.address[size_t(l)] = memory_region_base(region) + offset(l);
        r.size[size_t(l)] = 4;
    }
    d.requests = {r};
    d.requests_total = 1;
    return d;
}

}  // namespace

// A picked warp's picture follows the access line shown before (the same line, space and kind), once its recording
// comes; until then the panel says it is being recorded; the recording confirms (or not) the store to the element.
TEST(MemoryView, APickedWarpKeepsTheAccessLineAndTheRecordingConfirmsItsStore) {
    ui::MemoryViewState s;
    MemoryRecording first;
    first.blocks_total = first.blocks_recorded = 4;
    const WarpId w0{0, 0}, w{2, 2};
    const auto identity = [](int l) { return uint64_t(l) * 4; };
    first.warps = {kept_access(w0, 10, MemorySpace::Global, false, 0, identity),
                   kept_access(w0, 12, MemorySpace::Shared, true, 2, identity)};
    s.take(first);
    s.access = 1;  // the shared store on line 12
    ASSERT_EQ(s.chosen_access()->line, 12);

    MemoryRecording rec;
    rec.blocks_total = rec.blocks_recorded = 4;
    const ui::WarpPick p =
        ui::warp_pick(ui::owner_of_element(600, true, Dim3{4, 1, 1}, Dim3{256, 1, 1}), "y[600]", 600 * 4, &rec);
    ASSERT_TRUE(p.warp && *p.warp == w);
    EXPECT_TRUE(s.pick(p));
    EXPECT_EQ(s.warp, w);
    EXPECT_NE(s.missing_warp_reason().find("recording block 2, warp 2"), std::string::npos) << s.missing_warp_reason();
    EXPECT_EQ(s.pick_note, "picked y[600]: block 2, warp 2, lane 24");

    // Its recording: a load on line 10, a global store on line 11 (thread i stores y[i]: lane l at (576 + l) * 4),
    // the shared store on line 12: the picture goes to the third, as before the pick.
    s.recording_warp = w;
    rec.warps = {kept_access(w, 10, MemorySpace::Global, false, 0, identity),
                 kept_access(w, 11, MemorySpace::Global, true, 1, [](int l) { return uint64_t(576 + l) * 4; }),
                 kept_access(w, 12, MemorySpace::Shared, true, 2, identity)};
    s.take(rec);
    EXPECT_EQ(s.access, 2);
    EXPECT_EQ(s.missing_warp_reason(), "");
    EXPECT_EQ(s.pick_note,
              "picked y[600]: block 2, warp 2, lane 24; the recording shows lane 24 storing y[600] on line 11");

    // A kernel that writes elsewhere (a transpose): the recording says the mapping did not hold.
    rec.warps[1] = kept_access(w, 11, MemorySpace::Global, true, 1, [](int l) { return uint64_t(l) * 4000; });
    s.take(rec);
    EXPECT_NE(s.pick_note.find("shows no store of this warp to y[600]"), std::string::npos) << s.pick_note;

    // A warp in the recorded blocks that made no access (recorded for it): said so, not another warp's picture.
    s.choose_warp(WarpId{3, 7});
    s.recording_warp = WarpId{3, 7};
    s.take(rec);
    EXPECT_EQ(s.warp, (WarpId{3, 7}));
    EXPECT_EQ(s.chosen_access(), nullptr);
    EXPECT_NE(s.missing_warp_reason().find("made no recorded access"), std::string::npos) << s.missing_warp_reason();
    EXPECT_EQ(s.pick_note, "");  // chosen by number: the pick's note is gone
}

// The real window on the CPU backend: the strided lesson at stride 8 and n = 1000 (not a multiple of the block).
TEST(MemoryUi, TheSwitchShowsTheStridedLinesSectorsInTheGutterAndWarpZerosPicture) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here and could not be made: " << cpu.error().message;
    ScopedUserDir user;
    const int n = 1000, stride = 8;  // blocks of 256: whole warps, the last block's 8th warp of 8 lanes
    ui::AppOptions o = headless_options("performance/coalesced_vs_strided.cu");
    o.width = 1920;
    o.height = 1080;
    o.text_size = 1.75f;
    o.backend = "cpu";
    o.sets = {{"n", std::to_string(n)}, {"stride", std::to_string(stride)}};
    auto made = ui::AppHost::create(o, {});
    ASSERT_TRUE(made.ok()) << made.error().full();
    ui::AppHost& host = **made;
    ui::Workspace& ws = host.workspace();
    settle(host);
    ASSERT_TRUE(ws.can_run());
    ASSERT_TRUE(ws.latest() && ws.latest()->report.launched) << ws.output_status().failure;
    // Off: nothing recorded, nothing in the gutter.
    EXPECT_FALSE(ws.memory().result.has_value());
    EXPECT_TRUE(ws.editor_panel().gutter().empty());

    ws.show_panel("Memory");
    ws.memory().enabled = true;  // as the panel's checkbox
    frames_until(host, [&] { return ws.memory().result && !ws.memory().recording; }, "the memory recording", 50,
                 [&] { return memory_state(ws); });
    ASSERT_TRUE(ws.memory().result.has_value()) << ws.memory().error;
    host.frame();  // the editor scrolls to the worst line
    host.frame();

    // The access line, found in the text; the load's sectors per warp request worked out from the pattern.
    const std::string text = document_of(ws).text();
    const size_t at = text.find("y[i] = x[(long long)i * stride % n];");
    ASSERT_NE(at, std::string::npos);
    const int line = int(std::count(text.begin(), text.begin() + long(at), '\n')) + 1;
    uint64_t requests = 0, sectors = 0, ideal = 0;
    for (int first = 0; first < n; first += 32) {  // blocks of 256 are whole warps: warps are runs of 32 threads
        std::set<uint64_t> s;
        int lanes = 0;
        for (int i = first; i < std::min(first + 32, n); ++i, ++lanes) s.insert(uint64_t(i) * stride % n * 4 / 32);
        ++requests;
        sectors += s.size();
        ideal += (uint64_t(lanes) * 4 + 31) / 32;
    }
    const std::string load = "load " + one_decimal(double(sectors) / double(requests)) + " sectors/req";
    const auto& gutter = ws.editor_panel().gutter();
    const auto it =
        std::find_if(gutter.begin(), gutter.end(), [&](const auto& g) { return g.line == line && g.badge; });
    ASSERT_NE(it, gutter.end()) << "no gutter badge on line " << line << " (" << ws.memory().marks.size() << " marks, "
                                << gutter.size() << " drawn)";
    // The badge: how many times the ideal the load's sectors are, in the column right of the code.
    const double ratio = double(sectors) / double(ideal);
    char times[32];
    std::snprintf(times, sizeof times, std::fabs(ratio - std::round(ratio)) < 0.05 ? "x%.0f" : "x%.1f", ratio);
    EXPECT_EQ(it->text, times);
    expect_gutter_clear_of_code(ws);
    // The whole text (or the worst figure alone), where drawn, is the load's: on the line or under it.
    for (const auto& g : gutter)
        if (g.line == line && !g.badge) {
            EXPECT_NE(g.text.find(load), std::string::npos) << g.text << " / " << load;
        }
    // The store is contiguous: each request touches ceil(lanes * 4 / 32) sectors, its ideal.
    const std::string store = "store " + one_decimal(double(ideal) / double(requests)) + " sectors/req (ideal ";
    const auto mark =
        std::find_if(ws.memory().marks.begin(), ws.memory().marks.end(), [&](const auto& m) { return m.line == line; });
    ASSERT_NE(mark, ws.memory().marks.end());
    EXPECT_EQ(mark->text.rfind(load, 0), 0u) << mark->text;
    EXPECT_NE(mark->text.find(store), std::string::npos) << mark->text << " / expected " << store;
    EXPECT_EQ(it->grade, ui::MemoryGrade::Far);

    // The warp picture: warp 0 of block 0, the load, its only request: lanes 0-31 each in a sector of their own.
    const ui::MemoryPanel* panel = ws.memory_panel();
    ASSERT_NE(panel, nullptr);
    std::set<uint64_t> warp0_sectors, warp0_lines;
    for (int i = 0; i < 32; ++i) {
        warp0_sectors.insert(uint64_t(i) * stride % n * 4 / 32);
        warp0_lines.insert(uint64_t(i) * stride % n * 4 / 128);
    }
    const std::string& legend = panel->drawn().legend;
    EXPECT_EQ(panel->drawn().picture.sectors, warp0_sectors.size()) << legend;
    EXPECT_EQ(panel->drawn().picture.row_offsets.size(), warp0_lines.size());
    EXPECT_NE(legend.find("lanes 0-31 touch " + std::to_string(warp0_sectors.size()) + " sectors in " +
                          std::to_string(warp0_lines.size()) +
                          " lines of 128 bytes; a coalesced request of the same "
                          "128 bytes would touch 4"),
              std::string::npos)
        << legend;
    EXPECT_GT(panel->drawn().y1 - panel->drawn().y0, 8 * 8.0f);  // 8 rows of cells, squeezed into the small tab

    // The large picture: at 1920 wide each 4-byte cell has room for its lane's number at full size.
    ws.memory().large = true;
    host.frame();
    host.frame();
    EXPECT_TRUE(panel->drawn().large);
    EXPECT_TRUE(panel->drawn().numbered);
    EXPECT_EQ(panel->drawn().picture.sectors, warp0_sectors.size());
    EXPECT_GE(panel->drawn().cell_h, panel->drawn().font_size);
    if (const char* dir = std::getenv("CP_UI_TEST_SHOTS"))
        if (auto shot = host.screenshot()) render::write_png(std::string(dir) + "/memory_strided_large.png", *shot);
    ws.memory().large = false;

    // A change while on records again: stride 1 is coalesced, the gutter turns to the ideal.
    ws.inputs().choices.params["stride"] = 1;
    ws.inputs().touch();
    frames_until(
        host,
        [&] {
            const auto& g = ws.editor_panel().gutter();
            const auto l = std::find_if(g.begin(), g.end(), [&](const auto& x) { return x.line == line; });
            return !ws.memory().recording && l != g.end() && l->grade == ui::MemoryGrade::Ideal;
        },
        "the gutter of line " + std::to_string(line) + " to turn ideal", 50, [&] { return memory_state(ws); });
    const auto& g2 = ws.editor_panel().gutter();
    const auto it2 = std::find_if(g2.begin(), g2.end(), [&](const auto& x) { return x.line == line; });
    ASSERT_NE(it2, g2.end());
    EXPECT_EQ(it2->grade, ui::MemoryGrade::Ideal) << it2->text;
    EXPECT_EQ(panel->drawn().picture.sectors, 4u) << panel->drawn().legend;
    std::printf("memory view: figures on screen %.0f ms after asking (CPU backend, n = %d)\n", ws.memory().took_ms, n);
    if (const char* dir = std::getenv("CP_UI_TEST_SHOTS"))
        if (auto shot = host.screenshot()) render::write_png(std::string(dir) + "/memory_view.png", *shot);
}

// Picking by pointing at the output: a click on element e of the strided lesson's plot shows the warp whose thread
// e stores y[e] (1D: e = blockIdx.x * 256 + threadIdx.x), at the access line shown before (the strided load), and
// the recording confirms the store. Then a long access line: its figures stay off the code.
TEST(MemoryUi, AClickOnThePlotShowsTheWarpThatWroteTheElementAndALongLineKeepsItsFiguresOffTheCode) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here and could not be made: " << cpu.error().message;
    ScopedUserDir user;
    const int n = 1000, stride = 8, block = 256;
    ui::AppOptions o = recording_window("performance/coalesced_vs_strided.cu",
                                        {{"n", std::to_string(n)}, {"stride", std::to_string(stride)}});
    auto made = ui::AppHost::create(o, {});
    ASSERT_TRUE(made.ok()) << made.error().full();
    ui::AppHost& host = **made;
    ui::Workspace& ws = host.workspace();
    until_recorded(host);
    ASSERT_TRUE(ws.memory().result.has_value()) << ws.memory().error;
    host.frame();
    const auto* before = ws.memory().chosen_access();
    ASSERT_NE(before, nullptr);
    const int line = before->line;  // the strided load: the access that wastes most
    EXPECT_FALSE(before->store);

    const ui::DrawnPlot& plot = ws.output_panel().drawn_plot();
    ASSERT_TRUE(plot.valid);
    const uint64_t e = 600;  // block 2, thread 88: warp 2, lane 24
    const float x = float(plot.x0 + (double(e) - plot.x_min) / (plot.x_max - plot.x_min) * (plot.x1 - plot.x0));
    const float y = float(plot.y0 + (plot.y1 - plot.y0) * 0.4);
    ImGui::GetIO().AddMousePosEvent(x, y);
    host.frame();
    host.frame();
    EXPECT_NE(
        ws.output_panel().drawn_plot().hover.find("click: Memory panel shows block 2, warp 2 (lane 24 writes y[600])"),
        std::string::npos)
        << ws.output_panel().drawn_plot().hover;
    click(host, x, y);
    const WarpId expected{e / block, uint32_t(e % block / 32)};
    EXPECT_EQ(ws.memory().warp, expected) << ws.memory().pick_note;
    frames_until(host, [&] { return !ws.memory().recording && !ws.memory().accesses_of(expected).empty(); },
                 "the recording of the expected line's accesses", 50, [&] { return memory_state(ws); });
    host.frame();
    const ui::MemoryPanel* panel = ws.memory_panel();
    ASSERT_NE(panel, nullptr);
    const auto* shown = ws.memory().chosen_access();
    ASSERT_NE(shown, nullptr) << panel->drawn().missing;
    EXPECT_EQ(shown->warp, expected);
    EXPECT_EQ(shown->line, line);
    EXPECT_FALSE(shown->store);
    // Its load: thread t = 576 + lane reads x[t * stride % n].
    std::set<uint64_t> warp_sectors;
    for (uint64_t t = e / 32 * 32; t < e / 32 * 32 + 32; ++t) warp_sectors.insert(t * stride % n * 4 / 32);
    EXPECT_EQ(panel->drawn().picture.sectors, warp_sectors.size()) << panel->drawn().legend;
    EXPECT_NE(ws.memory().pick_note.find("the recording shows lane 24 storing y[600]"), std::string::npos)
        << ws.memory().pick_note;
    // The plot marks the warp's 32 elements.
    EXPECT_TRUE(ws.output_panel().drawn_plot().warp_band);
    EXPECT_EQ(ws.output_panel().drawn_plot().warp_first, e / 32 * 32);
    EXPECT_EQ(ws.output_panel().drawn_plot().warp_last, e / 32 * 32 + 31);
    // At 1920 x 1.75 the panel's column is narrow: the sectors name their lanes at full size or close to it.
    EXPECT_GE(panel->drawn().number_size, panel->drawn().font_size * 0.75f);
    if (const char* dir = std::getenv("CP_UI_TEST_SHOTS")) {
        ImGui::GetIO().AddMousePosEvent(4, float(o.height) - 4);  // off the plot: its tooltip would cover the panel
        host.frame();
        host.frame();
        if (auto shot = host.screenshot()) render::write_png(std::string(dir) + "/memory_pick.png", *shot);
    }

    // The access line made long (a comment past the editor's edge): its figures stay in the column.
    std::string text = document_of(ws).text();
    const std::string access = "y[i] = x[(long long)i * stride % n];";
    const size_t at = text.find(access);
    ASSERT_NE(at, std::string::npos);
    text.insert(at + access.size(),
                "  // every thread reads one float, stride floats after its neighbour's, and "
                "writes one float next to its neighbour's");
    const std::string key = ws.memory().recorded_key;
    ws.set_source(text, host.seconds() - 5.0);
    for (int i = 0; i < 3; ++i) host.frame();
    frames_until(host, [&] { return !ws.memory().recording && ws.memory().recorded_key != key; },
                 "a recording of the edited source", 77, [&] { return memory_state(ws); });
    ASSERT_TRUE(ws.memory().result.has_value()) << ws.memory().error;
    ASSERT_NE(ws.memory().recorded_key, key) << "the edit was not recorded";
    // The new text put the editor back at the top: the line brought into view, as clicking a message does.
    const_cast<ui::EditorPanel&>(ws.editor_panel()).jump_to_line(line);
    host.frame();
    host.frame();
    const auto& gutter = ws.editor_panel().gutter();
    const auto badge =
        std::find_if(gutter.begin(), gutter.end(), [&](const auto& g) { return g.line == line && g.badge; });
    ASSERT_NE(badge, gutter.end()) << gutter.size() << " drawn";
    EXPECT_GT(badge->code_x1, badge->code_right) << "the line is meant to run past the code area";
    expect_gutter_clear_of_code(ws);
    for (const auto& g : gutter)
        if (g.line == line && !g.badge) {
            EXPECT_EQ(g.row, line + 1) << g.text;  // on the line under it, or nowhere
        }
}

// On a CUDA device (skipped elsewhere): the strided lesson at its default n (16.7 M floats, past the recording's
// cap: its first blocks are recorded), the switch turned on, the figures on screen within a second (issue 23).
// The time is printed for the lead to read on the H100; the figures must be there and be stride 1's.
TEST(MemoryUi, OnCudaTheStridedLessonsFiguresAtItsDefaultSizeComeWithinASecond) {
    if (auto cuda = make_cuda_backend(); !cuda) GTEST_SKIP() << "no CUDA device: " << cuda.error().message;
    ScopedUserDir user;
    ui::AppOptions o = headless_options("performance/coalesced_vs_strided.cu");
    o.backend = "cuda";
    auto made = ui::AppHost::create(o, {});
    ASSERT_TRUE(made.ok()) << made.error().full();
    ui::AppHost& host = **made;
    ui::Workspace& ws = host.workspace();
    settle(host);
    ASSERT_TRUE(ws.latest() && ws.latest()->report.launched) << ws.output_status().failure;
    switch_on_and_wait(host);
    ASSERT_TRUE(ws.memory().result.has_value()) << ws.memory().error;
    const MemoryRecording& r = *ws.memory().result;
    EXPECT_TRUE(r.capped);
    EXPECT_GT(r.blocks_recorded, 0u);
    ASSERT_FALSE(r.figures.empty());
    for (const MemoryFigures& f : r.figures) EXPECT_EQ(f.sectors, f.ideal_sectors) << "line " << f.line;
    std::printf("memory view: figures on screen %.0f ms after asking (CUDA backend, default n; %s)\n",
                ws.memory().took_ms, memory_recording_note(r).c_str());
}

// The register-blocked multiply's copy has 252 loads and stores to record: compiling it took the driver's JIT about
// 3.5 s on the H100's host, at the switch. The window now prepares it in the background after the lesson's first
// run (a low-priority `cuda-playground compile --memory`), so the switch finds its cubin. With the driver's own
// cache off and an empty cache of ours, as on a machine that never recorded it: the figures' time is printed.
TEST(MemoryUi, OnCudaTheRegisterBlockedMultiplysFiguresComeSoonOnceTheWindowHasPreparedItsCopy) {
    if (auto cuda = make_cuda_backend(); !cuda) GTEST_SKIP() << "no CUDA device: " << cuda.error().message;
    ScopedUserDir user;
    test::ScopedEnv env("CUDA_CACHE_DISABLE", "1");
    env.set("CUDA_PLAYGROUND_PREPARE_WITH", CP_BINARY);
    ui::AppOptions o = headless_options("matrix/matmul_register_blocked.cu");
    o.backend = "cuda";
    auto made = ui::AppHost::create(o, {});
    ASSERT_TRUE(made.ok()) << made.error().full();
    ui::AppHost& host = **made;
    ui::Workspace& ws = host.workspace();
    settle(host);
    ASSERT_TRUE(ws.latest() && ws.latest()->report.launched) << ws.output_status().failure;
    const auto prepared_from = std::chrono::steady_clock::now();
    ASSERT_TRUE(ws.preparing_recording()) << "the window did not start preparing the recording's copy";
    while (ws.preparing_recording() && std::chrono::steady_clock::now() - prepared_from < std::chrono::seconds(120))
        host.frame();
    const double prepared_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - prepared_from).count();
    switch_on_and_wait(host);
    ASSERT_TRUE(ws.memory().result.has_value()) << ws.memory().error;
    const MemoryRecording& r = *ws.memory().result;
    EXPECT_FALSE(r.capped);
    ASSERT_FALSE(r.figures.empty());
    std::printf("memory view: register-blocked multiply, figures on screen %.0f ms after asking, its copy prepared in "
                "the background in %.0f ms after the first picture (CUDA backend, driver JIT cache off; %s)\n",
                ws.memory().took_ms, prepared_ms, memory_recording_note(r).c_str());
}

// The padded transpose's column read from shared memory: warp 0 of block 0 (threadIdx.y = 0) reads tile[lane][0],
// word lane * (32 + pad): with the lesson's + 1 every lane has a bank of its own; without it all 32 are in bank 0.
TEST(MemoryUi, TheTransposesColumnReadIsConflictFreePaddedAndThirtyTwoWayWithout) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here and could not be made: " << cpu.error().message;
    ScopedUserDir user;
    ui::AppOptions o = recording_window("matrix/transpose_shared.cu", {{"width", "70"}, {"height", "50"}});
    auto made = ui::AppHost::create(o, {});
    ASSERT_TRUE(made.ok()) << made.error().full();
    ui::AppHost& host = **made;
    ui::Workspace& ws = host.workspace();
    until_recorded(host);
    ASSERT_TRUE(ws.memory().result.has_value()) << ws.memory().error;
    const int line = [&] {
        const std::string text = document_of(ws).text();
        const size_t at = text.find("tile[threadIdx.x * pitch + threadIdx.y + j]");
        return at == std::string::npos ? -1 : int(std::count(text.begin(), text.begin() + long(at), '\n')) + 1;
    }();
    ASSERT_GT(line, 0);
    const auto expected_wavefronts = [](int pad) {
        int per_bank[32] = {};
        for (int lane = 0; lane < 32; ++lane) ++per_bank[(lane * (32 + pad)) % 32];
        return *std::max_element(per_bank, per_bank + 32);
    };
    const auto show_column_read = [&] {
        const auto kept = ws.memory().accesses_of(WarpId{0, 0});
        for (size_t i = 0; i < kept.size(); ++i)
            if (kept[i]->line == line && kept[i]->space == MemorySpace::Shared) ws.memory().access = int(i);
        ws.memory().request = 0;
        host.frame();
        return ws.memory_panel()->drawn().picture;
    };
    ui::WarpPicture padded = show_column_read();
    EXPECT_EQ(padded.space, MemorySpace::Shared);
    EXPECT_EQ(padded.wavefronts, expected_wavefronts(1));
    EXPECT_EQ(padded.wavefronts, 1);
    EXPECT_NE(ws.memory_panel()->drawn().legend.find("no conflict"), std::string::npos)
        << ws.memory_panel()->drawn().legend;
    EXPECT_TRUE(ws.memory_panel()->drawn().way_labels.empty());
    if (const char* dir = std::getenv("CP_UI_TEST_SHOTS"))
        if (auto shot = host.screenshot()) render::write_png(std::string(dir) + "/memory_banks_padded.png", *shot);

    // Without the padding (the lesson's `pad` slider at 0): bank 0 holds 32 words. The same window re-records the
    // same recording module with the new scalar.
    const std::string padded_key = ws.memory().recorded_key;
    ws.inputs().choices.params["pad"] = 0;
    ws.inputs().touch();
    for (int i = 0; i < 3; ++i) host.frame();
    frames_until(host, [&] { return !ws.memory().recording && ws.memory().recorded_key != padded_key; },
                 "a recording of the changed source", 77, [&] { return memory_state(ws); });
    ASSERT_TRUE(ws.memory().result.has_value()) << ws.memory().error;
    ASSERT_NE(ws.memory().recorded_key, padded_key) << "the change of pad was not recorded";
    const ui::WarpPicture unpadded = show_column_read();
    EXPECT_EQ(unpadded.wavefronts, expected_wavefronts(0)) << ws.memory_panel()->drawn().status;
    EXPECT_EQ(unpadded.wavefronts, 32);
    ASSERT_EQ(unpadded.bank_conflicted.size(), 32u);
    EXPECT_TRUE(unpadded.bank_conflicted[0]);
    EXPECT_NE(ws.memory_panel()->drawn().legend.find("a 32-way conflict, 31 extra wavefronts"), std::string::npos)
        << ws.memory_panel()->drawn().legend;
    // Readable from the back of the room at 1920x1080, text 1.75: lane and bank numbers at the text's full size,
    // the banks filling the panel's width (wrapped into bands of 16 or 8 when 32 leave no room), the collision named.
    const ui::MemoryPanel::Drawn d = ws.memory_panel()->drawn();
    EXPECT_FLOAT_EQ(d.number_size, d.font_size);
    EXPECT_GE(d.font_size, 16.0f * 1.75f - 1);  // kBaseFontPixels at text size 1.75
    EXPECT_TRUE(d.columns == 32 || d.columns == 16 || d.columns == 8) << d.columns;
    EXPECT_GE(d.cell_w * float(d.columns), (d.area_w - d.font_size * 2.0f) * 0.8f) << d.cell_w << " x " << d.columns;
    EXPECT_GE(d.cell_h, d.font_size);
    EXPECT_EQ(d.way_labels, std::vector<std::string>{"32-way"});
    if (const char* shots = std::getenv("CP_UI_TEST_SHOTS"))
        if (auto shot = host.screenshot()) render::write_png(std::string(shots) + "/memory_banks_unpadded.png", *shot);

    // "Large picture": over most of the screen, the 32 banks in one band at full size.
    ws.memory().large = true;
    host.frame();
    host.frame();
    const ui::MemoryPanel::Drawn& big = ws.memory_panel()->drawn();
    EXPECT_TRUE(big.large);
    EXPECT_EQ(big.columns, 32);
    EXPECT_GE(big.number_size, big.font_size);
    EXPECT_GT(big.cell_w * float(big.columns), d.cell_w * float(d.columns));
    EXPECT_EQ(big.way_labels, std::vector<std::string>{"32-way"});
    if (const char* shots = std::getenv("CP_UI_TEST_SHOTS"))
        if (auto shot = host.screenshot())
            render::write_png(std::string(shots) + "/memory_banks_large_transpose.png", *shot);
    ws.memory().large = false;
}

// The bank-conflict lesson at stride 8: warp 0's store puts lane l at word 8 l, bank 8 l % 32: four banks of 8
// words each. The panel and the large picture name each of them "8-way" and draw the numbers at full size.
TEST(MemoryUi, TheBankConflictLessonsCollidingBanksAreEachNamedInBothPictures) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here and could not be made: " << cpu.error().message;
    ScopedUserDir user;
    const int stride = 8;
    ui::AppOptions o =
        recording_window("performance/shared_bank_conflicts.cu", {{"n", "1000"}, {"stride", std::to_string(stride)}});
    auto made = ui::AppHost::create(o, {});
    ASSERT_TRUE(made.ok()) << made.error().full();
    ui::AppHost& host = **made;
    ui::Workspace& ws = host.workspace();
    until_recorded(host);
    ASSERT_TRUE(ws.memory().result.has_value()) << ws.memory().error;
    const auto kept = ws.memory().accesses_of(WarpId{0, 0});
    for (size_t i = 0; i < kept.size(); ++i)
        if (kept[i]->space == MemorySpace::Shared && kept[i]->store) ws.memory().access = int(i);
    host.frame();
    int words[32] = {};
    for (int lane = 0; lane < 32; ++lane) ++words[lane * stride % 32];
    std::vector<std::string> expected;
    for (int b = 0; b < 32; ++b)
        if (words[b] > 1) expected.push_back(std::to_string(words[b]) + "-way");
    ASSERT_EQ(expected.size(), 4u);
    const ui::MemoryPanel::Drawn small = ws.memory_panel()->drawn();
    EXPECT_EQ(small.picture.wavefronts, 8);
    EXPECT_EQ(small.way_labels, expected);
    EXPECT_FLOAT_EQ(small.number_size, small.font_size);
    ws.memory().large = true;
    host.frame();
    host.frame();
    const ui::MemoryPanel::Drawn& big = ws.memory_panel()->drawn();
    EXPECT_TRUE(big.large);
    EXPECT_EQ(big.columns, 32);
    EXPECT_EQ(big.way_labels, expected);
    EXPECT_GE(big.number_size, big.font_size);  // at least the text's size: larger where the cells allow
    if (const char* shots = std::getenv("CP_UI_TEST_SHOTS"))
        if (auto shot = host.screenshot()) render::write_png(std::string(shots) + "/memory_banks_large.png", *shot);
}

// Picking on a picture: the transpose's output pixel (px, py) is out[py * height + px]. The standard mapping names
// thread (px % 32, py % 8) of block (px / 32, py / 8); the kernel's writer is block (py / 32, px / 32) (it writes
// tile (by, bx)). Where the two agree the recording confirms the store; where not, it says so.
TEST(MemoryUi, AClickOnAPictureUsesThePixelMappingAndTheRecordingSaysWhetherItHeld) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here and could not be made: " << cpu.error().message;
    ScopedUserDir user;
    const int width = 70, height = 50;  // the input's; the output picture is height x width
    ui::AppOptions o = recording_window("matrix/transpose_shared.cu",
                                        {{"width", std::to_string(width)}, {"height", std::to_string(height)}});
    auto made = ui::AppHost::create(o, {});
    ASSERT_TRUE(made.ok()) << made.error().full();
    ui::AppHost& host = **made;
    ui::Workspace& ws = host.workspace();
    until_recorded(host);
    ASSERT_TRUE(ws.memory().result.has_value()) << ws.memory().error;
    const unsigned grid_x = (width + 31) / 32;
    const auto pick_pixel = [&](int px, int py) {
        const ui::DrawnImage& di = ws.output_panel().drawn_output();
        EXPECT_TRUE(di.valid);
        const float x = di.x0 + (float(px) + 0.5f) * di.zoom, y = di.y0 + (float(py) + 0.5f) * di.zoom;
        EXPECT_TRUE(x >= di.clip_x0 && x < di.clip_x1 && y >= di.clip_y0 && y < di.clip_y1) << x << ", " << y;
        click(host, x, y);
        const WarpId standard{uint64_t(px / 32) + grid_x * uint64_t(py / 8), uint32_t((px % 32 + 32 * (py % 8)) / 32)};
        EXPECT_EQ(ws.memory().warp, standard) << ws.memory().pick_note;
        frames_until(host, [&] { return !ws.memory().recording && !ws.memory().accesses_of(standard).empty(); },
                     "the recording of the standard line's accesses", 50, [&] { return memory_state(ws); });
        host.frame();
        return ws.memory().pick_note;
    };
    // (10, 5): the writer is block (0, 0), thread (10, 5): the same warp as the mapping's, lane 10.
    std::string note = pick_pixel(10, 5);
    EXPECT_NE(note.find("the recording shows lane 10 storing out(10, 5)"), std::string::npos) << note;
    // The picture outlines the warp: a 32 x 8 block's warp 5 is row 5, columns 0-31.
    const ui::DrawnImage& di = ws.output_panel().drawn_output();
    EXPECT_TRUE(di.warp_outlined);
    EXPECT_EQ(di.warp_x0, 0);
    EXPECT_EQ(di.warp_x1, 31);
    EXPECT_EQ(di.warp_y0, 5);
    EXPECT_EQ(di.warp_y1, 5);
    // (40, 5): the mapping names block (1, 0); the writer is block (0, 1): the recording finds no such store.
    note = pick_pixel(40, 5);
    EXPECT_NE(note.find("shows no store of this warp to out(40, 5)"), std::string::npos) << note;
}

// With the Memory switch on, an edit that changes the size of a static __shared__ array, then the recording of
// the edited kernel in the same CPU worker. It aborted ("thread (0,0,0) of block (0,0,0) called abort()") until
// the worker stopped writing the thread state of the library it ran last, which the edit had unloaded
// (StaticSharedArrays::forget; tests/unit/cpu_static_shared_test.cpp, and the session-level
// MemoryLessons.ARecordingAfterAnEditThatResizesASharedArrayRecordsTheNewKernel).
TEST(MemoryUi, ARecordingAfterAnEditRecordsTheNewKernel) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here and could not be made: " << cpu.error().message;
    ScopedUserDir user;
    ui::AppOptions o = headless_options("matrix/transpose_shared.cu");
    o.backend = "cpu";
    o.memory = true;
    o.sets = {{"width", "70"}, {"height", "50"}};
    auto made = ui::AppHost::create(o, {});
    ASSERT_TRUE(made.ok()) << made.error().full();
    ui::AppHost& host = **made;
    ui::Workspace& ws = host.workspace();
    frames_until(host, [&] { return ws.memory().result && !ws.memory().recording; }, "the memory recording", 50,
                 [&] { return memory_state(ws); });
    ASSERT_TRUE(ws.memory().result.has_value()) << ws.memory().error;
    std::string text = document_of(ws).text();
    // The tile's size changes with the edit: a second recording module whose __shared__ array has the same
    // declaration but another size, in the same CPU worker.
    for (const auto& [from, to] :
         {std::pair<std::string, std::string>{"const int pitch = TILE + pad;", "const int pitch = TILE;"},
          {"tile[TILE * (TILE + MAX_PAD)]", "tile[TILE * TILE]"}}) {
        ASSERT_NE(text.find(from), std::string::npos) << from;
        text.replace(text.find(from), from.size(), to);
    }
    ws.set_source(text, host.seconds() - 5.0);
    for (int i = 0; i < 3; ++i) host.frame();
    frames_until(host,
                 [&] {
                     return !ws.memory().recording && ws.memory().recorded_key == ws.memory().wanted_key &&
                            !ws.memory().wanted_key.empty() && ws.memory().error.empty();
                 },
                 "the recording of the wanted source, without an error", 77, [&] { return memory_state(ws); });
    EXPECT_EQ(ws.memory().error, "");
    EXPECT_TRUE(ws.memory().result.has_value());
}

// A memory lesson projected (F11, or --present) records at once: its `show: Memory` is the lesson's point, and the
// class saw an empty switch (issue 41). Its figures then come up: with stride 8, a warp's 32 lanes read floats 32
// bytes apart, each in a 32-byte sector of its own (computed here from the stride; n a multiple of the warp).
TEST(MemoryUi, AMemoryLessonInPresentationRecordsAtOnce) {
    ScopedUserDir user;
    ui::AppOptions o = headless_options("performance/coalesced_vs_strided.cu");
    o.width = 1920;
    o.height = 1080;
    o.text_size = 1.75f;
    o.backend = "cpu";
    o.present = true;
    o.sets = {{"n", "1024"}, {"stride", "8"}};
    auto host = start_settled(o, {});
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    EXPECT_TRUE(ws.memory().enabled) << "presentation of a `show: Memory` lesson left the switch off";
    ASSERT_TRUE(frames_until(*host, [&] { return ws.memory().result && !ws.memory().recording; },
                             "the memory recording of the presented lesson", 80, [&] { return memory_state(ws); }));
    const int stride = 8, lanes = 32, sector = 32, element = 4;
    const double per_request = std::min<double>(lanes, double(lanes) * stride * element / sector);
    bool found = false;
    for (const MemoryFigures& f : ws.memory().result->figures)
        if (f.space == MemorySpace::Global && !f.store && f.sectors_per_request() >= per_request - 1e-9) found = true;
    EXPECT_TRUE(found) << "no global load at " << per_request << " sectors a request";
}

