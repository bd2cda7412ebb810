// The window's memory view (issue 23): the gutter text and grade of per-line figures and the warp picture's cells
// (ui/state/memory_view.h), and the real window on the CPU backend: the Memory switch records the strided lesson,
// the editor's gutter shows the load's sectors per request and the Memory panel draws warp 0's request. Expected
// values are worked out here from the access pattern.
#include "ui_test_support.h"

#include "core/engine/backend.h"
#include "ui/state/memory_view.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
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
        if (c.column == 5) EXPECT_EQ(c.lanes.size(), 16u);  // one broadcast
    EXPECT_NE(p.legend.find("bank 0 holds 16 different words: a 16-way conflict, 15 extra wavefronts"),
              std::string::npos)
        << p.legend;
}

// The real window on the CPU backend: the strided lesson at stride 8 and n = 1000 (not a multiple of the block).
TEST(MemoryUi, TheSwitchShowsTheStridedLinesSectorsInTheGutterAndWarpZerosPicture) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) GTEST_SKIP() << "no CPU backend: " << cpu.error().message;
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
    for (int i = 0; i < 50 && !(ws.memory().result && !ws.memory().recording); ++i) host.frame();
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
    const auto it = std::find_if(gutter.begin(), gutter.end(), [&](const auto& g) { return g.line == line; });
    ASSERT_NE(it, gutter.end()) << "no gutter text on line " << line << " (" << ws.memory().marks.size() << " marks, "
                                << gutter.size() << " drawn)";
    // Drawn: the whole line's text, or in a narrow editor the worst figure alone (the load), on the line or under it.
    EXPECT_NE(it->text.find(load), std::string::npos) << it->text << " / expected " << load;
    // The store is contiguous: each request touches ceil(lanes * 4 / 32) sectors, its ideal.
    const std::string store = "store " + one_decimal(double(ideal) / double(requests)) + " sectors/req (ideal ";
    const auto mark =
        std::find_if(ws.memory().marks.begin(), ws.memory().marks.end(), [&](const auto& m) { return m.line == line; });
    ASSERT_NE(mark, ws.memory().marks.end());
    EXPECT_EQ(mark->text.rfind(load, 0), 0u) << mark->text;
    EXPECT_NE(mark->text.find(store), std::string::npos) << mark->text << " / expected " << store;
    EXPECT_EQ(it->grade, ui::MemoryGrade::Far);
    EXPECT_GT(it->x1 - it->x0, 100.0f);

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

    // A change while on records again: stride 1 is coalesced, the gutter turns to the ideal.
    ws.inputs().choices.params["stride"] = 1;
    ws.inputs().touch();
    for (int i = 0; i < 50; ++i) {
        host.frame();
        const auto& g = ws.editor_panel().gutter();
        const auto l = std::find_if(g.begin(), g.end(), [&](const auto& x) { return x.line == line; });
        if (!ws.memory().recording && l != g.end() && l->grade == ui::MemoryGrade::Ideal) break;
    }
    const auto& g2 = ws.editor_panel().gutter();
    const auto it2 = std::find_if(g2.begin(), g2.end(), [&](const auto& x) { return x.line == line; });
    ASSERT_NE(it2, g2.end());
    EXPECT_EQ(it2->grade, ui::MemoryGrade::Ideal) << it2->text;
    EXPECT_EQ(panel->drawn().picture.sectors, 4u) << panel->drawn().legend;
    std::printf("memory view: figures on screen %.0f ms after asking (CPU backend, n = %d)\n", ws.memory().took_ms, n);
    if (const char* dir = std::getenv("CP_UI_TEST_SHOTS"))
        if (auto shot = host.screenshot()) render::write_png(std::string(dir) + "/memory_view.png", *shot);
}

// The padded transpose's column read from shared memory: warp 0 of block 0 (threadIdx.y = 0) reads tile[lane][0],
// word lane * (32 + pad): with the lesson's + 1 every lane has a bank of its own; without it all 32 are in bank 0.
TEST(MemoryUi, TheTransposesColumnReadIsConflictFreePaddedAndThirtyTwoWayWithout) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) GTEST_SKIP() << "no CPU backend: " << cpu.error().message;
    ScopedUserDir user;
    ui::AppOptions o = headless_options("matrix/transpose_shared.cu");
    o.width = 1920;
    o.height = 1080;
    o.text_size = 1.75f;
    o.backend = "cpu";
    o.memory = true;  // --memory: the switch on from the start
    o.sets = {{"width", "70"}, {"height", "50"}};
    auto made = ui::AppHost::create(o, {});
    ASSERT_TRUE(made.ok()) << made.error().full();
    ui::AppHost& host = **made;
    ui::Workspace& ws = host.workspace();
    for (int i = 0; i < 50 && !(ws.memory().result && !ws.memory().recording); ++i) host.frame();
    ASSERT_TRUE(ws.memory().result.has_value()) << ws.memory().error;
    const int line = [&] {
        const std::string text = document_of(ws).text();
        const size_t at = text.find("= tile[threadIdx.x * pitch + threadIdx.y + j];");
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
    if (const char* dir = std::getenv("CP_UI_TEST_SHOTS"))
        if (auto shot = host.screenshot()) render::write_png(std::string(dir) + "/memory_banks_padded.png", *shot);

    // Without the padding (the lesson's `pad` slider at 0): bank 0 holds 32 words. The same window re-records the
    // same recording module with the new scalar.
    const std::string padded_key = ws.memory().recorded_key;
    ws.inputs().choices.params["pad"] = 0;
    ws.inputs().touch();
    for (int i = 0; i < 80 && (ws.memory().recording || ws.memory().recorded_key == padded_key || i < 3); ++i)
        host.frame();
    ASSERT_TRUE(ws.memory().result.has_value()) << ws.memory().error;
    ASSERT_NE(ws.memory().recorded_key, padded_key) << "the change of pad was not recorded";
    const ui::WarpPicture unpadded = show_column_read();
    EXPECT_EQ(unpadded.wavefronts, expected_wavefronts(0)) << ws.memory_panel()->drawn().status;
    EXPECT_EQ(unpadded.wavefronts, 32);
    ASSERT_EQ(unpadded.bank_conflicted.size(), 32u);
    EXPECT_TRUE(unpadded.bank_conflicted[0]);
    EXPECT_NE(ws.memory_panel()->drawn().legend.find("a 32-way conflict, 31 extra wavefronts"), std::string::npos)
        << ws.memory_panel()->drawn().legend;
    if (const char* shots = std::getenv("CP_UI_TEST_SHOTS"))
        if (auto shot = host.screenshot()) render::write_png(std::string(shots) + "/memory_banks_unpadded.png", *shot);
}

// With the Memory switch on, an edit that changes the size of a static __shared__ array, then the recording of
// the edited kernel in the same CPU worker. It aborted ("thread (0,0,0) of block (0,0,0) called abort()") until
// the worker stopped writing the thread state of the library it ran last, which the edit had unloaded
// (StaticSharedArrays::forget; tests/unit/cpu_static_shared_test.cpp, and the session-level
// MemoryLessons.ARecordingAfterAnEditThatResizesASharedArrayRecordsTheNewKernel).
TEST(MemoryUi, ARecordingAfterAnEditRecordsTheNewKernel) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) GTEST_SKIP() << "no CPU backend: " << cpu.error().message;
    ScopedUserDir user;
    ui::AppOptions o = headless_options("matrix/transpose_shared.cu");
    o.backend = "cpu";
    o.memory = true;
    o.sets = {{"width", "70"}, {"height", "50"}};
    auto made = ui::AppHost::create(o, {});
    ASSERT_TRUE(made.ok()) << made.error().full();
    ui::AppHost& host = **made;
    ui::Workspace& ws = host.workspace();
    for (int i = 0; i < 50 && !(ws.memory().result && !ws.memory().recording); ++i) host.frame();
    ASSERT_TRUE(ws.memory().result.has_value()) << ws.memory().error;
    std::string text = document_of(ws).text();
    // The tile's size changes with the edit: a second recording module whose __shared__ array has the same
    // declaration but another size, in the same CPU worker.
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"const int pitch = TILE + pad;", "const int pitch = TILE;"},
                                   {"tile[TILE * (TILE + MAX_PAD)]", "tile[TILE * TILE]"}}) {
        ASSERT_NE(text.find(from), std::string::npos) << from;
        text.replace(text.find(from), from.size(), to);
    }
    ws.set_source(text, host.seconds() - 5.0);
    for (int i = 0; i < 80 && (ws.memory().recording || ws.memory().recorded_key != ws.memory().wanted_key ||
                               ws.memory().wanted_key.empty() || !ws.memory().error.empty() || i < 3);
         ++i)
        host.frame();
    EXPECT_EQ(ws.memory().error, "");
    EXPECT_TRUE(ws.memory().result.has_value());
}

