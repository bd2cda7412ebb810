// The Debug panel in the window (issue 39), as a class sees it (1920x1080, text 1.75, the CPU backend): the
// shared-memory tree's partial sums at each barrier in the cells drawn (values computed here), a changed cell in
// yellow on screen, F10 and Shift+F10 going forward and back to the same stop, a click on a value going to the step
// that set it, a breakpoint set by clicking a line number (a red dot there) reached by Continue, and a block that
// faults stepped up to the fault with its line marked.
#include "ui_test_support.h"
#include "support/debug_data.h"

#include "core/backends/registry.h"
#include "ui/workspace.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "test_paths.h"

namespace cp {
namespace {

using namespace cp::uitest;

std::unique_ptr<ui::AppHost> start_debugging(const std::string& file, Dim3 block) {
    ui::AppOptions o = projector_options(file);
    o.backend = "cpu";
    o.debug_block = block;
    auto host = start_settled(o, {});
    if (!host) return nullptr;
    ui::Workspace& ws = host->workspace();
    ws.show_panel("Debug");
    frames_until(*host, [&] { return ws.debug().has() && !ws.debug().recording; }, "the block's recording", 80,
                 [&] { return ws.debug().error; });
    host->frame();
    return host;
}

// The pixel at (x, y) of a screenshot.
std::array<int, 3> dbg_pixel(const Image& shot, float x, float y) {
    const uint8_t* p = shot.pixels.data() + (size_t(y) * size_t(shot.width) + size_t(x)) * 4;
    return {p[0], p[1], p[2]};
}

TEST(DebugUi, EachBarriersPartialSumsAreTheCellsOnScreenAndStepsGoBackAndForth) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here: " << cpu.error().message;
    ScopedUserDir user;
    const std::string file = test::debug_data("tree_sum.cu");
    const int block = 3;  // the last block: 8 of its 64 elements inside n = 200
    auto host = start_debugging(file, {uint32_t(block), 0, 0});
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ui::DebugViewState& dbg = ws.debug();
    ASSERT_TRUE(dbg.has()) << dbg.error;
    const ui::DebugPanel& panel = *ws.debug_panel();
    const std::vector<std::vector<long>> levels = test::tree_sum_levels(block, 200);
    ASSERT_EQ(dbg.recording_data()->barriers.size(), levels.size());
    const int sync_load = test::line_in(file, "__syncthreads();");

    // F7: barrier after barrier, the shared cells drawn are the level's sums.
    bool checked_pixels = false;
    for (size_t k = 0; k < levels.size(); ++k) {
        SCOPED_TRACE("barrier " + std::to_string(k + 1));
        press_key(*host, ImGuiKey_F7);
        host->frame();  // the editor scrolls to the stop's line
        ASSERT_EQ(dbg.barrier_at_stop(), int(k + 1));
        const auto it = panel.drawn().shared.find("partial");
        ASSERT_NE(it, panel.drawn().shared.end()) << "no partial[] drawn";
        ASSERT_EQ(it->second.size(), 64u);
        for (size_t t = 0; t < 64; ++t) EXPECT_EQ(it->second[t].text, std::to_string(levels[k][t])) << "partial[" << t << "]";
        // Warp 0's rows: each thread waits at the barrier's line with its tid.
        ASSERT_FALSE(panel.drawn().rows.empty());
        const std::vector<std::string>& header = panel.drawn().header;
        const auto tid = std::find(header.begin(), header.end(), "tid") - header.begin();
        for (const auto& row : panel.drawn().rows) {
            ASSERT_GT(row.size(), size_t(tid));
            EXPECT_EQ(row[size_t(tid)].text, row[0].text);  // tid == the thread's index
            if (k == 0) {
                EXPECT_EQ(std::stoi(row[2].text), sync_load) << "at the first barrier";
            }
        }
        // The cells the level changed (against the barrier before) are marked, and on screen have the yellow cell
        // colour; the others do not.
        const auto& cells = it->second;
        if (k > 0) {
            int changed_at = -1, same_at = -1;
            for (size_t t = 0; t < 64; ++t) {
                const bool changed = levels[k][t] != levels[k - 1][t];
                EXPECT_EQ(cells[t].changed, changed) << "partial[" << t << "]";
                (changed ? changed_at : same_at) = int(t);
            }
            if (changed_at >= 0 && same_at >= 0 && !checked_pixels) {
                checked_pixels = true;
                auto shot = host->screenshot();
                ASSERT_TRUE(shot.ok());
                const auto& yes = cells[size_t(changed_at)];
                const auto& no = cells[size_t(same_at)];
                EXPECT_EQ(dbg_pixel(*shot, yes.x0 + 1, yes.y1 - 2), (std::array<int, 3>{110, 90, 20}));
                EXPECT_NE(dbg_pixel(*shot, no.x0 + 1, no.y1 - 2), (std::array<int, 3>{110, 90, 20}));
            }
            // The editor marks the barrier's line, where the watched threads stand (brought into view).
            const int sync_level = test::line_in(file, "__syncthreads();", sync_load);
            EXPECT_TRUE(ws.editor_panel().debug_drawn().count(sync_level)) << "no stop mark on line " << sync_level;
        }
    }
    EXPECT_TRUE(checked_pixels) << "no level changed some elements and left others";

    // At the third barrier, F10 then Shift+F10: back at the same stop, the same cells.
    ImGuiIO& io = ImGui::GetIO();
    dbg.set_round(dbg.recording_data()->barriers[2]);
    host->frame();
    const uint32_t third = dbg.round();
    press_key(*host, ImGuiKey_F10);
    EXPECT_GT(dbg.round(), third);
    io.AddKeyEvent(ImGuiMod_Shift, true);
    press_key(*host, ImGuiKey_F10);
    io.AddKeyEvent(ImGuiMod_Shift, false);
    host->frame();
    EXPECT_EQ(dbg.round(), third);
    for (size_t t = 0; t < 64; ++t)
        EXPECT_EQ(panel.drawn().shared.at("partial")[t].text, std::to_string(levels[2][t])) << "partial[" << t << "]";

    // A click on thread 0's `stride` goes to the step that set it: the value is the same there and differed (or
    // was not yet in scope) one probe before.
    const std::vector<std::string>& header = panel.drawn().header;
    const auto col = size_t(std::find(header.begin(), header.end(), "stride") - header.begin());
    ASSERT_LT(col, header.size());
    const auto& cell = panel.drawn().rows.at(0).at(col);
    const std::string value = cell.text;
    click(*host, (cell.x0 + cell.x1) / 2, (cell.y0 + cell.y1) / 2);
    host->frame();
    const DebugTimeline& tl = *dbg.timeline();
    const uint32_t set = dbg.round();
    EXPECT_LT(set, third);
    const DebugStep* now = tl.step_at(0, set);
    ASSERT_NE(now, nullptr);
    ASSERT_NE(tl.variable(*now, "stride"), nullptr);
    EXPECT_EQ(tl.value_text(*tl.variable(*now, "stride")), value);
    const DebugStep* prior = set > 0 ? tl.step_at(0, set - 1) : nullptr;
    if (prior && prior != now && tl.variable(*prior, "stride")) {
        EXPECT_NE(tl.value_text(*tl.variable(*prior, "stride")), value);
    }
}

TEST(DebugUi, ABreakpointClickedOnALineNumberIsWhereContinueStops) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here: " << cpu.error().message;
    ScopedUserDir user;
    const std::string file = test::debug_data("tree_sum.cu");
    auto host = start_debugging(file, {1, 0, 0});
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ui::DebugViewState& dbg = ws.debug();
    ASSERT_TRUE(dbg.has()) << dbg.error;
    const int add = test::line_in(file, "partial[tid] += partial[tid + stride];");
    press_key(*host, ImGuiKey_F7);  // to the loop's first barrier: the editor brings it into view
    press_key(*host, ImGuiKey_F7);
    host->frame();
    float x0, y0, x1, y1;
    ASSERT_TRUE(ws.editor_panel().line_number_rect(add, x0, y0, x1, y1)) << "line " << add << " is not in view";
    click(*host, (x0 + x1) / 2, (y0 + y1) / 2);
    host->frame();
    ASSERT_TRUE(dbg.marks.breakpoints.count(add)) << "the click set no breakpoint on line " << add;
    auto shot = host->screenshot();
    ASSERT_TRUE(shot.ok());
    EXPECT_GT(marker_red_pixels(*shot, ws.editor_panel(), add), 10) << "no red dot on line " << add << "'s number";
    // From the start, Continue (F8) stops at the first round in which a thread arrives at that line.
    dbg.set_round(0);
    press_key(*host, ImGuiKey_F8);
    uint32_t first = UINT32_MAX;
    for (const DebugStep& s : dbg.recording_data()->steps)
        if (s.line == add) first = std::min(first, s.round);
    EXPECT_EQ(dbg.round(), first);
    // At the stop, the threads that took the branch (tid < 32 on the first level) are the ones at the line.
    uint32_t at_line = 0;
    for (const ui::DebugRow& r : dbg.rows()) at_line += r.line == add ? 1 : 0;
    EXPECT_EQ(at_line, 32u) << "warp 0: all 32 lanes have tid < 32";
    // A watch typed into the panel is a column: each watched thread's `input[i] * 2`, the element it loaded.
    dbg.add_watch("input[i] * 2");
    host->frame();
    const ui::DebugPanel& panel = *ws.debug_panel();
    const std::vector<std::string>& header = panel.drawn().header;
    const auto col = size_t(std::find(header.begin(), header.end(), "input[i] * 2") - header.begin());
    ASSERT_LT(col, header.size()) << "no watch column";
    for (const auto& row : panel.drawn().rows) {
        const int i = 64 + std::stoi(row.at(0).text);  // block 1: input[i] = i + 1
        EXPECT_EQ(row.at(col).text, std::to_string(2 * (i + 1))) << "thread " << row.at(0).text;
    }
    // A second click clears it.
    click(*host, (x0 + x1) / 2, (y0 + y1) / 2);
    host->frame();
    EXPECT_FALSE(dbg.marks.breakpoints.count(add));
}

TEST(DebugUi, ABlockThatFaultedIsSteppedUpToTheFaultAndItsLineMarked) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here: " << cpu.error().message;
    ScopedUserDir user;
    const std::string file = test::debug_data("past_the_end.cu");
    ui::AppOptions o = projector_options(file);
    o.backend = "cpu";
    auto host = start_settled(o, {});
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ASSERT_TRUE(ws.latest() && ws.latest()->report.error) << "the run should fail: it writes past `out`";
    ASSERT_TRUE(ws.latest()->report.error_block.has_value());
    const Dim3 faulted = *ws.latest()->report.error_block;
    ws.debug_block_that_faulted();
    frames_until(*host, [&] { return ws.debug().has() && !ws.debug().recording; }, "the faulted block's recording", 80,
                 [&] { return ws.debug().error; });
    host->frame();
    ui::DebugViewState& dbg = ws.debug();
    ASSERT_TRUE(dbg.has()) << dbg.error;
    EXPECT_EQ(dbg.recording_data()->block_index, faulted);
    ASSERT_TRUE(dbg.failure() && *dbg.failure());
    EXPECT_EQ((*dbg.failure())->kind, ErrorKind::OutOfBounds);
    const int store = test::line_in(file, "out[i] = twice;");
    EXPECT_EQ((*dbg.failure())->line, store);
    EXPECT_EQ(dbg.round(), dbg.rounds() - 1) << "the stop is the fault's round";
    const auto& marks = ws.editor_panel().debug_drawn();
    bool fault_mark = false;
    for (auto [it, end] = marks.equal_range(store); it != end; ++it) fault_mark |= it->second == "fault";
    EXPECT_TRUE(fault_mark) << "no fault mark on line " << store;
}

// "alone" (a click on the checkbox beside the watched warp): the block is recorded again with warp 0 stepping
// alone. F10 from the start then moves warp 0 one statement at a time (the lines drawn in its rows go down the
// kernel) while warp 1 stays at its first line; another watched warp is recorded stepping alone in its turn.
TEST(DebugUi, TheWatchedWarpStepsAloneWhileTheOthersWait) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here: " << cpu.error().message;
    ScopedUserDir user;
    const std::string file = test::debug_data("tree_sum.cu");
    auto host = start_debugging(file, {3, 0, 0});
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ui::DebugViewState& dbg = ws.debug();
    ASSERT_TRUE(dbg.has()) << dbg.error;
    EXPECT_EQ(dbg.recording_data()->focus_warp, -1);
    const ui::DebugPanel& panel = *ws.debug_panel();
    ASSERT_TRUE(panel.drawn().buttons.count("Alone")) << "no `alone` checkbox drawn";
    const ui::DebugPanel::Cell alone = panel.drawn().buttons.at("Alone");
    click(*host, (alone.x0 + alone.x1) / 2, (alone.y0 + alone.y1) / 2);
    frames_until(*host, [&] { return dbg.has() && !dbg.recording && dbg.recording_data()->focus_warp == 0; },
                 "the recording with warp 0 alone", 80, [&] { return dbg.error; });
    host->frame();
    ASSERT_EQ(dbg.recording_data()->focus_warp, 0);
    const int first_line = test::line_in(file, "__shared__ int partial[64];");
    const int load = test::line_in(file, "partial[tid] = i < n ? input[i] : 0;");
    dbg.set_round(0);
    host->frame();
    std::vector<int> lines_drawn;
    for (int k = 0; k < 3; ++k) {
        press_key(*host, ImGuiKey_F10);
        host->frame();
        ASSERT_FALSE(panel.drawn().rows.empty());
        const int line = std::stoi(panel.drawn().rows[0].at(2).text);
        for (const auto& row : panel.drawn().rows) EXPECT_EQ(std::stoi(row.at(2).text), line) << "warp 0 moves together";
        lines_drawn.push_back(line);
        // Warp 1 is held at its first line.
        for (const DebugThreadAt& t : dbg.timeline()->threads_at(dbg.round()))
            if (t.thread >= 32) {
                ASSERT_NE(t.step, nullptr);
                EXPECT_EQ(t.step->line, first_line) << "thread " << t.thread << " at round " << dbg.round();
                EXPECT_FALSE(t.moved);
            }
    }
    EXPECT_EQ(lines_drawn, (std::vector<int>{first_line + 1, first_line + 2, load})) << "one line a step";
    // Watching warp 1 records it alone in its turn.
    dbg.set_warp(1);
    frames_until(*host, [&] { return dbg.has() && !dbg.recording && dbg.recording_data()->focus_warp == 1; },
                 "the recording with warp 1 alone", 80, [&] { return dbg.error; });
    EXPECT_EQ(dbg.recording_data()->focus_warp, 1);
}

// A whole program's launch, from the Program panel ("Step through a block"): its first launch's block 0 on the
// inputs the program made (n = 1000000 of its fill), at the first barrier each thread's grid-stride sum is the
// shared cell drawn (computed here), and the Editor marks the program's own line.
TEST(DebugUi, AProgramsLaunchIsSteppedThroughFromTheProgramPanel) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here: " << cpu.error().message;
    ScopedUserDir user;
    const std::string file = std::string(CP_TEST_DATA_DIR) + "/programs/reduce_two_launches.cu";
    ui::AppOptions o = projector_options(file);
    o.backend = "cpu";
    auto host = start_settled(o, {});
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    host->frame();
    ASSERT_TRUE(ws.program().last().has_value());
    ASSERT_EQ(ws.program().last()->launches.size(), 2u);
    ws.debug_program_launch(0);
    ui::DebugViewState& dbg = ws.debug();
    frames_until(*host, [&] { return dbg.has() && !dbg.recording; }, "the launch's recording", 120,
                 [&] { return dbg.error; });
    host->frame();
    ASSERT_TRUE(dbg.has()) << dbg.error;
    EXPECT_FALSE(dbg.subject.empty());
    press_key(*host, ImGuiKey_F7);
    host->frame();
    ASSERT_EQ(dbg.barrier_at_stop(), 1);
    const int n = 1000000, stride = 120 * 256;
    std::vector<long> sums(256, 0);
    for (int i = 0; i < n; ++i)
        if (i % stride < 256) sums[size_t(i % stride)] += i == 100 ? 1000 : (i * 7) % 13 - 6;
    const auto it = ws.debug_panel()->drawn().shared.find("cache");
    ASSERT_NE(it, ws.debug_panel()->drawn().shared.end()) << "no cache[] drawn";
    ASSERT_EQ(it->second.size(), 256u);
    for (size_t t = 0; t < 256; ++t) EXPECT_EQ(it->second[t].text, std::to_string(sums[t])) << "cache[" << t << "]";
    const int sync = test::line_in(file, "__syncthreads();");
    EXPECT_TRUE(ws.editor_panel().debug_drawn().count(sync)) << "no stop mark on the program's line " << sync;
    // The second launch: the first one's 120 block sums.
    ws.debug_program_launch(1);
    frames_until(*host, [&] { return dbg.has() && !dbg.recording && dbg.recording_data()->threads == 256 &&
                                     dbg.subject.rfind("Launch 2", 0) == 0; },
                 "the second launch's recording", 120, [&] { return dbg.error; });
    ASSERT_TRUE(dbg.has()) << dbg.error;
    EXPECT_EQ(dbg.recording_data()->regions.size() >= 1, true);
}

// The window's --debug-launch N and --debug-warp W: the program runs, its second launch is stepped with warp 1 alone,
// stopped at the first barrier (--debug-barrier 1), its cells the first launch's block sums computed here.
TEST(DebugUi, TheCommandLineStepsAProgramsNthLaunchWithOneWarpAlone) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here: " << cpu.error().message;
    ScopedUserDir user;
    const std::string file = std::string(CP_TEST_DATA_DIR) + "/programs/reduce_two_launches.cu";
    ui::AppOptions o = projector_options(file);
    o.backend = "cpu";
    o.debug_launch = 2;
    o.debug_warp = 1;
    o.debug_barrier = 1;
    auto host = start_settled(o, {});
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ui::DebugViewState& dbg = ws.debug();
    frames_until(*host, [&] { return dbg.has() && !dbg.recording && dbg.barrier_at_stop() == 1; },
                 "the second launch stopped at its first barrier", 200, [&] { return dbg.error; });
    host->frame();
    ASSERT_TRUE(dbg.has()) << dbg.error;
    EXPECT_EQ(dbg.subject.rfind("Launch 2", 0), 0u) << dbg.subject;
    EXPECT_EQ(dbg.recording_data()->focus_warp, 1);
    EXPECT_EQ(dbg.warp, 1);
    const int n = 1000000, blocks = 120, stride = blocks * 256;
    std::vector<long> partial(blocks, 0);
    for (int i = 0; i < n; ++i) partial[size_t((i % stride) / 256)] += i == 100 ? 1000 : (i * 7) % 13 - 6;
    const auto it = ws.debug_panel()->drawn().shared.find("cache");
    ASSERT_NE(it, ws.debug_panel()->drawn().shared.end()) << "no cache[] drawn";
    ASSERT_EQ(it->second.size(), 256u);
    for (size_t t = 0; t < 256; ++t)
        EXPECT_EQ(it->second[t].text, std::to_string(t < size_t(blocks) ? partial[t] : 0)) << "cache[" << t << "]";
}

}  // namespace
}  // namespace cp
