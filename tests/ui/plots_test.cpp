// Plots with axes and hover values (ImPlot): 1D outputs as a line with the element's owner, a histogram's
// bins as bars without an owner, the timing history with every run; a colour bar with the data's range
// beside every colormapped image. Hover values are checked against the kernel's real output.
#include "ui_test_support.h"

#include "core/engine/backend.h"
#include "support/scoped_env.h"
#include "core/backends/registry.h"

#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <array>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>

using namespace cp;
using namespace cp::uitest;

namespace {

// Moves the mouse to a point and draws two frames (hover states settle a frame after the move).
void hover(ui::AppHost& host, float x, float y) {
    ImGui::GetIO().AddMousePosEvent(x, y);
    host.frame();
    host.frame();
}

std::string shots_dir() {
    const char* d = std::getenv("CP_UI_TEST_SHOTS");
    return d ? d : "";
}

}  // namespace

TEST(Plots, AOneDimensionalOutputIsALineWithAxesAndItsHoveredValue) {
    ScopedUserDir user;
    ui::AppOptions o = headless_options("basics/vector_add.cu");
    o.sets = {{"n", "3001"}};  // under the plot's 4096-point budget: every element is a point
    auto host = start_settled(o, host_kernels_factory());
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ASSERT_TRUE(ws.latest() && ws.latest()->report.launched);
    const ui::DrawnPlot& plot = ws.output_panel().drawn_plot();
    ASSERT_TRUE(plot.valid);
    EXPECT_FALSE(plot.bars);
    EXPECT_EQ(plot.x_label, "element index");
    EXPECT_EQ(plot.y_label, "c (float)");
    EXPECT_EQ(plot.points, 3001u);
    EXPECT_FALSE(plot.envelope);

    // The element under the mouse and its value, as the kernel wrote it, and who wrote it (block of 256).
    hover(*host, plot.x0 + (plot.x1 - plot.x0) * 0.5f, plot.y0 + (plot.y1 - plot.y0) * 0.5f);
    const std::string tip = ws.output_panel().drawn_plot().hover;
    ASSERT_EQ(tip.rfind("c[", 0), 0u) << tip;
    const size_t i = std::stoul(tip.substr(2));
    EXPECT_NEAR(double(i), 1500, 80) << tip;
    // c[i] = a[i] + b[i] with a in [-1, 1] and b[i] = 0.001 i: the shown value must lie in that window, and be
    // the element the view holds (the run matched its reference, so that is what the kernel wrote).
    EXPECT_EQ(ws.latest()->report.verified, std::optional<bool>(true));
    const HostBuffer& c = *ws.outputs().views().at(0).host;
    const double shown = std::stod(tip.substr(tip.find("= ") + 2));
    EXPECT_GE(shown, 0.001 * double(i) - 1.0001) << tip;
    EXPECT_LE(shown, 0.001 * double(i) + 1.0001) << tip;
    EXPECT_NE(tip.find("= " + ui::format_value(ui::element_value(c, i, 0), true)), std::string::npos) << tip;
    EXPECT_NE(tip.find("block (" + std::to_string(i / 256) + ") · thread (" + std::to_string(i % 256) + ")"),
              std::string::npos)
        << tip;
    if (!shots_dir().empty())
        if (auto s = host->screenshot()) render::write_png(shots_dir() + "/plot_vector_add.png", *s);
}

// A series of 100003 elements (not a multiple of the bucket) is drawn as a min..max band with its mean, one
// point per bucket (not a zig-zag through every min and max, which fills the plot solid); a short one is not.
TEST(Plots, ALongSeriesIsAnEnvelopeNotASolidBlock) {
    ScopedUserDir user;
    ui::AppOptions o = headless_options("basics/vector_add.cu");
    o.sets = {{"n", "100003"}};
    auto host = start_settled(o, host_kernels_factory());
    ASSERT_TRUE(host);
    const ui::DrawnPlot& plot = host->workspace().output_panel().drawn_plot();
    ASSERT_TRUE(plot.valid);
    EXPECT_TRUE(plot.envelope);
    const size_t per_bucket = (100003 + 2048 - 1) / 2048;
    EXPECT_EQ(plot.points, (100003 + per_bucket - 1) / per_bucket);
    EXPECT_LE(plot.points, 2048u);
    if (!shots_dir().empty())
        if (auto s = host->screenshot()) render::write_png(shots_dir() + "/plot_envelope.png", *s);
}

// A long series of random numbers in 0..1 (its buckets each span nearly 0..1): on the projector's 1920x1080 at text
// size 1.75 the min..max band must stand out from the window's background (it was (49,54,61) on (46,46,46), so the
// plot read "every y is 0.5"), and no vertical line may stand in it (ImPlot drew one grid line brighter, in the middle
// of every long plot). Measured in the screenshot's pixels.
TEST(Plots, ALongSeriesBandIsSeenAndNoLineStandsInIt) {
    ScopedUserDir user;
    auto cpu = find_backend("cpu")->make();
    ASSERT_TRUE(cpu.ok()) << "the CPU backend is needed here: " << cpu.error().message;
    test::TempDir dir;
    const std::filesystem::path lesson = dir.path() / "noise.cu";
    std::ofstream(lesson) << "/*@playground\ntitle: noise\nparam n: int = 200003\n"
                             "buffer x: float[n] in random(seed=3, min=0, max=1)\nbuffer y: float[n] out\n"
                             "block: 256\ngrid: ceil(n / block.x)\n*/\n"
                             "__global__ void copy(const float* x, float* y, int n) {\n"
                             "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) y[i] = x[i];\n}\n";
    auto host = start_settled(projector_options(lesson.string()), {});
    ASSERT_TRUE(host);
    for (int i = 0; i < 2; ++i) host->frame();
    const ui::DrawnPlot& plot = host->workspace().output_panel().drawn_plot();
    ASSERT_TRUE(plot.valid);
    ASSERT_TRUE(plot.envelope);
    auto shot = host->screenshot();
    ASSERT_TRUE(shot.ok());
    const Image& img = *shot;
    if (!shots_dir().empty()) render::write_png(shots_dir() + "/plot_band.png", img);
    auto rgb = [&](int x, int y) {
        const uint8_t* p = &img.pixels[(size_t(y) * size_t(img.width) + size_t(x)) * size_t(img.channels)];
        return std::array<int, 3>{p[0], p[1], p[2]};
    };
    // The window's background beside the plot (left of its frame, level with its middle).
    const std::array<int, 3> bg = rgb(int(plot.x0) - 2, int((plot.y0 + plot.y1) / 2));
    auto distance = [](const std::array<int, 3>& a, const std::array<int, 3>& b) {
        return std::abs(a[0] - b[0]) + std::abs(a[1] - b[1]) + std::abs(a[2] - b[2]);
    };
    // Rows at a third and two thirds of the plot's height (above the launch strip): inside the band nearly all along.
    const int left = int(plot.x0) + 70, right = int(plot.x1) - 10;  // past the y axis' labels
    size_t seen = 0, total = 0;
    for (const float f : {0.3f, 0.62f}) {
        const int y = int(plot.y0 + (plot.strip ? plot.strip_y0 - plot.y0 : plot.y1 - plot.y0) * f);
        for (int x = left; x < right; ++x, ++total) seen += distance(rgb(x, y), bg) >= 90;
    }
    EXPECT_GT(seen, total * 8 / 10) << "the band is not told from the background (" << bg[0] << "," << bg[1] << ","
                                    << bg[2] << ")";
    // Inside the band, a third of the way up (below the mean), nothing stands out of the band's colour (the row's most
    // common one): no vertical line that a class would read as a mark of the data.
    const int y_band = int(plot.y0 + (plot.strip ? plot.strip_y0 - plot.y0 : plot.y1 - plot.y0) * 0.3f);
    std::map<std::array<int, 3>, int> colours;
    for (int x = left; x < right; ++x) ++colours[rgb(x, y_band)];
    const std::array<int, 3> band =
        std::max_element(colours.begin(), colours.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
    std::vector<int> standing_out;
    for (int x = left; x < right; ++x)
        if (distance(rgb(x, y_band), band) > 20) standing_out.push_back(x);
    EXPECT_TRUE(standing_out.empty()) << standing_out.size() << " columns stand out of the band, the first at x = "
                                      << (standing_out.empty() ? 0 : standing_out[0]);
}

TEST(Plots, AHistogramsBinsAreBarsWithoutAnOwner) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here and could not be made: " << cpu.error().message;
    ScopedUserDir user;
    ui::AppOptions o = headless_options("histogram/atomic_histogram.cu");
    o.backend = "cpu";
    auto host = start_settled(o, {});
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ASSERT_TRUE(ws.latest() && ws.latest()->report.launched)
        << (ws.latest() && ws.latest()->report.error ? ws.latest()->report.error->full() : "");
    const ui::DrawnPlot& plot = ws.output_panel().drawn_plot();
    ASSERT_TRUE(plot.valid);
    EXPECT_TRUE(plot.bars);
    EXPECT_EQ(plot.x_label, "bin (element index)");
    EXPECT_EQ(plot.points, 256u);
    EXPECT_FALSE(ws.outputs().views().at(0).element_per_thread) << "every block adds to every bin";
    hover(*host, plot.x0 + (plot.x1 - plot.x0) * 0.5f, plot.y0 + (plot.y1 - plot.y0) * 0.5f);
    const std::string tip = ws.output_panel().drawn_plot().hover;
    ASSERT_EQ(tip.rfind("bins[", 0), 0u) << tip;
    const size_t bin = std::stoul(tip.substr(5));
    // The bins matched the CPU reference histogram; the tooltip shows the hovered bin's count of them.
    EXPECT_EQ(ws.latest()->report.verified, std::optional<bool>(true));
    const HostBuffer& bins = *ws.outputs().views().at(0).host;
    EXPECT_NE(tip.find("= " + ui::format_value(ui::element_value(bins, bin, 0), false)), std::string::npos) << tip;
    EXPECT_EQ(tip.find("block ("), std::string::npos) << tip;
    if (!shots_dir().empty())
        if (auto s = host->screenshot()) render::write_png(shots_dir() + "/plot_histogram.png", *s);
}

TEST(Plots, EveryColormappedImageHasAColourBarWithItsRange) {
    ScopedUserDir user;
    auto host = start_settled(headless_options("basics/thread_ids.cu"), host_kernels_factory());
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ASSERT_TRUE(ws.latest() && ws.latest()->report.launched);
    const ui::DrawnImage& d = ws.output_panel().drawn_output();
    ASSERT_TRUE(d.colour_bar) << "int ids are colormapped";
    EXPECT_EQ(d.bar_min, 0);
    EXPECT_EQ(d.bar_max, 333.0 * 200 - 1);  // the largest id the kernel wrote
    // The bar is drawn right of the image: many colours in that strip.
    auto shot = host->screenshot();
    ASSERT_TRUE(shot.ok());
    const Rect strip{int(d.clip_x1) + 2, int(d.clip_y0), int(d.clip_x1) + 40, int(d.clip_y1)};
    EXPECT_GT(distinct_colors(*shot, strip), 50u);

    // An RGBA photo shown in colour has none; one channel of it is colormapped and has one, for 0..255.
    host = nullptr;
    host = start_settled(headless_options("image/box_blur.cu"), host_kernels_factory());
    ASSERT_TRUE(host);
    ui::Workspace& blur = host->workspace();
    EXPECT_FALSE(blur.output_panel().drawn_output().colour_bar);
    auto& view = blur.outputs().views().at(0);
    view.state.display.channel = 1;
    blur.outputs().refresh_display(view);
    host->frame();
    EXPECT_TRUE(blur.output_panel().drawn_output().colour_bar);
    EXPECT_EQ(blur.output_panel().drawn_output().bar_min, 0);
    EXPECT_EQ(blur.output_panel().drawn_output().bar_max, 255);
}

TEST(Plots, TheTimingHistoryShowsEveryRunAndItsLaunch) {
    ScopedUserDir user;
    auto host = start_settled(headless_options("basics/thread_ids.cu"), host_kernels_factory());
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    for (uint32_t bx : {8u, 32u}) {
        ws.inputs().choices.block = Dim3{bx, 8, 1};
        ws.inputs().touch();
        settle(*host);
    }
    ws.show_panel("Timing");
    for (int i = 0; i < 3; ++i) host->frame();
    ASSERT_EQ(ws.timing().samples().size(), 3u);
    const auto* panel = ws.timing_panel();
    ASSERT_NE(panel, nullptr);
    EXPECT_TRUE(panel->drawn_history().valid);
    EXPECT_EQ(panel->drawn_history().points, 3u);
    // Scrolled into view, as a user scrolls the panel (the controls under the output are a short row: the
    // picture comes first), hovering the right end of the plot names the last run and its launch.
    if (ImGuiWindow* w = ImGui::FindWindowByName("Timing")) {
        ImGui::SetScrollY(w, w->Scroll.y + (panel->drawn_history().y0 - w->InnerRect.Min.y));
        for (int i = 0; i < 3; ++i) host->frame();
    }
    const auto& h = panel->drawn_history();
    hover(*host, h.x1 - 2, (h.y0 + h.y1) * 0.5f);
    const std::string tip = panel->drawn_history().hover;
    const ui::TimingSample& last = ws.timing().samples().back();
    EXPECT_EQ(tip.rfind("run #" + std::to_string(last.run), 0), 0u) << tip;
    EXPECT_NE(tip.find("block 32x8x1"), std::string::npos) << tip;
    if (!shots_dir().empty())
        if (auto s = host->screenshot()) render::write_png(shots_dir() + "/timing.png", *s);
}

// A `devices:` run (two CPU workers play two GPUs) marks where each device's part starts on its plot.
TEST(Plots, ASplitRunMarksEachDevicesPart) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here and could not be made: " << cpu.error().message;
    ScopedUserDir user;
    cp::test::ScopedEnv devices("CUDA_PLAYGROUND_CPU_DEVICES", "2");
    ui::AppOptions o = headless_options("multigpu/split_across_gpus.cu");
    o.backend = "cpu";
    o.sets = {{"n", "10007"}};
    auto host = start_settled(o, {});
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ASSERT_TRUE(ws.latest() && ws.latest()->report.device_split);
    ASSERT_EQ(ws.latest()->report.device_split->parts.size(), 2u);
    EXPECT_EQ(ws.output_panel().drawn_plot().parts_marked, 2u);
}
