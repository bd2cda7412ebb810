// The Streams panel: a lesson with `streams:` run on the CPU backend brings the panel to the front with one lane
// per stream and every chunk's operations as bars (the layout it computed, and the bars that reached the
// screen); hovering a bar names its chunk and operation; the layout's pure parts against a hand-made report.
#include "ui_test_support.h"

#include "core/engine/backend.h"
#include "ui/state/streams_timeline.h"
#include "core/backends/registry.h"

#include <gtest/gtest.h>
#include <imgui.h>

#include <cstdlib>

using namespace cp;
using namespace cp::uitest;

TEST(StreamsPanel, ALessonWithStreamsShowsOneLanePerStream) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here and could not be made: " << cpu.error().message;
    ScopedUserDir user;
    ui::AppOptions o = headless_options("streams/overlap.cu");
    o.backend = "cpu";
    o.sets = {{"n", "100003"}, {"streams", "3"}};
    auto made = ui::AppHost::create(o, {});
    ASSERT_TRUE(made.ok()) << made.error().full();
    ui::AppHost& host = **made;
    settle(host);
    for (int i = 0; i < 6; ++i) host.frame();  // the panel comes to the front a frame or two after the run
    ui::Workspace& ws = host.workspace();
    ASSERT_TRUE(ws.latest().has_value());
    const RunReport& r = ws.latest()->report;
    ASSERT_TRUE(r.ok()) << r.error->full();
    ASSERT_TRUE(r.streams.has_value());
    EXPECT_EQ(r.verified, std::optional<bool>(true));

    const ui::StreamsPanel* panel = ws.streams_panel();
    ASSERT_NE(panel, nullptr);
    const auto& drawn = panel->drawn();
    ASSERT_TRUE(drawn.timeline) << "the Streams panel was not drawn in front";
    EXPECT_EQ(drawn.layout.lanes, 3);
    ASSERT_EQ(drawn.layout.lane_labels.size(), 3u);
    EXPECT_EQ(drawn.layout.lane_labels[2], "stream 2");
    // 12 chunks (4 per stream), each an h2d, a kernel and a d2h, 4 chunks in every lane.
    EXPECT_EQ(drawn.layout.bars.size(), 36u);
    for (int lane = 0; lane < 3; ++lane) EXPECT_EQ(drawn.layout.bars_in_lane(lane), 12u) << "lane " << lane;
    EXPECT_EQ(drawn.bars_drawn, 36u);
    EXPECT_GT(drawn.x1 - drawn.x0, 200);
    EXPECT_NE(drawn.layout.totals.find("3 streams"), std::string::npos) << drawn.layout.totals;
    EXPECT_NE(drawn.layout.note.find("one after another"), std::string::npos) << drawn.layout.note;
    const Rect window = window_rect("Streams");
    EXPECT_GT(window.width(), 0) << "the Streams panel is hidden behind another tab";

    // The mouse over the middle of lane 0 at the time of its second kernel: that bar's chunk and operation.
    const ui::TimelineBar* kernel = nullptr;
    for (const ui::TimelineBar& b : drawn.layout.bars)
        if (b.lane == 0 && b.kind == StreamOpKind::Kernel && b.chunk == 3) kernel = &b;
    ASSERT_NE(kernel, nullptr);
    const double t = (kernel->start_ms + kernel->end_ms) * 0.5;
    const float x = drawn.x0 + float(t / (drawn.layout.axis_ms * 1.02)) * (drawn.x1 - drawn.x0);
    const float y = drawn.y0 + (drawn.y1 - drawn.y0) * float((0 + 0.6) / 3.2);  // lane 0 of -0.6 .. 2.6, top down
    ImGui::GetIO().AddMousePosEvent(x, y);
    host.frame();
    host.frame();
    const std::string tip = ws.streams_panel()->drawn().hover;
    EXPECT_EQ(tip.rfind("chunk 3 on stream 0: kernel", 0), 0u) << tip;
    if (const char* d = std::getenv("CP_UI_TEST_SHOTS"))
        if (auto s = host.screenshot()) render::write_png(std::string(d) + "/streams.png", *s);
}

TEST(StreamsPanel, LayoutOfAHandMadeReport) {
    StreamsReport r;
    r.streams = 2;
    r.chunks = 2;
    r.param = "n";
    r.elements = 10;
    r.concurrent = true;
    r.ops = {{0, 0, StreamOpKind::H2D, 0.0, 1.0, 20},   {0, 0, StreamOpKind::Kernel, 1.0, 2.0, 0},
             {1, 1, StreamOpKind::H2D, 1.0, 2.0, 20},   {0, 0, StreamOpKind::D2H, 2.0, 3.0, 20},
             {1, 1, StreamOpKind::Kernel, 2.0, 3.0, 0}, {1, 1, StreamOpKind::D2H, 3.0, 4.0, 20}};
    r.total_ms = 4;
    r.one_stream_ms = 6;
    const ui::StreamsTimeline t = ui::layout_streams_timeline(r);
    EXPECT_EQ(t.lanes, 2);
    EXPECT_EQ(t.bars_in_lane(0), 3u);
    EXPECT_EQ(t.bars_in_lane(1), 3u);
    EXPECT_DOUBLE_EQ(t.axis_ms, 4);
    EXPECT_NE(t.totals.find("one stream: 6.000 ms"), std::string::npos) << t.totals;
    EXPECT_NE(t.totals.find("33% less"), std::string::npos) << t.totals;
    // Lane 1 at 1.5 ms is chunk 1's copy in; between lanes there is nothing.
    const ui::TimelineBar* b = ui::bar_at(t, 1.5, 1.1);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->chunk, 1);
    EXPECT_EQ(b->kind, StreamOpKind::H2D);
    EXPECT_EQ(ui::bar_at(t, 1.5, 0.5), nullptr);
    EXPECT_EQ(ui::bar_at(t, 3.5, 0.0), nullptr);  // stream 0 was idle then
    const std::string tip = ui::bar_tooltip(*b);
    EXPECT_NE(tip.find("chunk 1 on stream 1: host -> device"), std::string::npos) << tip;
    EXPECT_NE(tip.find("took 1.0000 ms"), std::string::npos) << tip;
    // The overlap of copies with other streams' kernels: chunk 1's copy in (1..2) with chunk 0's kernel (1..2),
    // chunk 0's copy out (2..3) with chunk 1's kernel (2..3).
    EXPECT_DOUBLE_EQ(r.copy_kernel_overlap_ms(), 2.0);
}
