// The launch as a strip along a 1D output's plot (issue 9 item 2): a length that is not a multiple of the
// block gets one colour per block with white block edges at the right elements, and the hovered element's
// block, thread, warp and lane; elements no thread owns (a grid too small) stay uncoloured and say so; a
// histogram's bins, which every block adds to, get no strip at all.
#include "ui_test_support.h"

#include "core/engine/backend.h"
#include "core/backends/registry.h"

#include <gtest/gtest.h>
#include <imgui.h>

#include <array>
#include <cstdlib>
#include <string>

using namespace cp;
using namespace cp::uitest;

namespace {

// The strip's pixel under element `e` (the middle of the strip's height).
std::array<uint8_t, 3> strip_pixel(const Image& shot, const ui::DrawnPlot& p, double e) {
    const double x = p.x0 + (e - p.x_min) / (p.x_max - p.x_min) * (p.x1 - p.x0);
    const int y = int((p.strip_y0 + p.strip_y1) * 0.5f);
    const uint8_t* px = shot.pixels.data() + (size_t(y) * size_t(shot.width) + size_t(x)) * 4;
    return {px[0], px[1], px[2]};
}

// The plot's line may cross the strip (it is blended over the data): colours are compared with a margin.
bool same(const std::array<uint8_t, 3>& a, const std::array<uint8_t, 3>& b) {
    for (int c = 0; c < 3; ++c)
        if (std::abs(int(a[c]) - int(b[c])) > 20) return false;
    return true;
}
bool distinct(const std::array<uint8_t, 3>& a, const std::array<uint8_t, 3>& b) {
    for (int c = 0; c < 3; ++c)
        if (std::abs(int(a[c]) - int(b[c])) > 40) return true;
    return false;
}

std::string hover_element(ui::AppHost& host, double e) {
    const ui::DrawnPlot& p = host.workspace().output_panel().drawn_plot();
    const float x = float(p.x0 + (e - p.x_min) / (p.x_max - p.x_min) * (p.x1 - p.x0));
    ImGui::GetIO().AddMousePosEvent(x, (p.y0 + p.strip_y0) * 0.5f);
    host.frame();
    host.frame();
    return host.workspace().output_panel().drawn_plot().hover;
}

void save(ui::AppHost& host, const char* name) {
    if (const char* d = std::getenv("CP_UI_TEST_SHOTS"))
        if (auto s = host.screenshot()) render::write_png(std::string(d) + "/" + name + ".png", *s);
}

}  // namespace

TEST(LaunchStrip, OneColourPerBlockWithEdgesAndTheHoveredOwner) {
    ScopedUserDir user;
    ui::AppOptions o = headless_options("basics/vector_add.cu");
    o.width = 1920;
    o.height = 1080;
    o.text_size = 1.75f;  // as on the projector
    o.sets = {{"n", "1000"}};  // blocks of 256: three whole blocks and one of 232
    auto host = start_settled(o, host_kernels_factory());
    ASSERT_TRUE(host);
    const ui::DrawnPlot& p = host->workspace().output_panel().drawn_plot();
    ASSERT_TRUE(p.valid);
    ASSERT_TRUE(p.strip) << p.strip_note;
    ASSERT_GT(p.strip_y1 - p.strip_y0, 8.0f);
    auto shot = host->screenshot();
    ASSERT_TRUE(shot.ok());
    save(*host, "launch_strip");
    // Block b covers elements [256 b, 256 b + 256): one colour inside a block, another in the next.
    EXPECT_TRUE(same(strip_pixel(*shot, p, 40), strip_pixel(*shot, p, 200)));
    EXPECT_TRUE(distinct(strip_pixel(*shot, p, 200), strip_pixel(*shot, p, 300)));
    EXPECT_TRUE(distinct(strip_pixel(*shot, p, 300), strip_pixel(*shot, p, 600)));
    EXPECT_TRUE(distinct(strip_pixel(*shot, p, 600), strip_pixel(*shot, p, 900)));
    EXPECT_TRUE(same(strip_pixel(*shot, p, 800), strip_pixel(*shot, p, 990))) << "the last, partial block is one colour";
    // White edges between blocks: at element 255.5, not in the middle of a block.
    for (double edge : {255.5, 511.5, 767.5}) {
        const auto c = strip_pixel(*shot, p, edge);
        EXPECT_TRUE(c[0] > 200 && c[1] > 200 && c[2] > 200) << "no edge at " << edge;
    }
    const auto inside = strip_pixel(*shot, p, 128);
    EXPECT_FALSE(inside[0] > 200 && inside[1] > 200 && inside[2] > 200);

    const std::string tip = hover_element(*host, 930);
    ASSERT_EQ(tip.rfind("c[", 0), 0u) << tip;
    const size_t i = std::stoul(tip.substr(2));
    EXPECT_NEAR(double(i), 930, 3) << tip;
    EXPECT_NE(tip.find("block (3) · thread (" + std::to_string(i - 768) + ") · warp " + std::to_string((i - 768) / 32) +
                       " · lane " + std::to_string((i - 768) % 32)),
              std::string::npos)
        << tip;
}

TEST(LaunchStrip, ElementsNoThreadOwnsStayUncolouredAndSaySo) {
    ScopedUserDir user;
    ui::AppOptions o = headless_options("basics/vector_add.cu");
    o.width = 1920;
    o.height = 1080;
    o.text_size = 1.75f;  // as on the projector
    o.sets = {{"n", "1000"}};
    o.grid = Dim3{2, 1, 1};  // 512 threads for 1000 elements
    auto host = start_settled(o, host_kernels_factory());
    ASSERT_TRUE(host);
    const ui::DrawnPlot& p = host->workspace().output_panel().drawn_plot();
    ASSERT_TRUE(p.strip) << p.strip_note;
    auto shot = host->screenshot();
    ASSERT_TRUE(shot.ok());
    save(*host, "launch_strip_grid_too_small");
    // Past thread 511 the strip shows the plot's background, the same at 700 and 950; block 0 is coloured.
    EXPECT_TRUE(same(strip_pixel(*shot, p, 700), strip_pixel(*shot, p, 950)));
    EXPECT_TRUE(distinct(strip_pixel(*shot, p, 100), strip_pixel(*shot, p, 700)));
    const std::string tip = hover_element(*host, 800);
    EXPECT_NE(tip.find("no thread under i = blockIdx.x * blockDim.x + threadIdx.x (past the launch's 512 threads)"),
              std::string::npos)
        << tip;
    EXPECT_EQ(tip.find("block ("), std::string::npos) << tip;
}

TEST(LaunchStrip, AHistogramGetsNoStripAndSaysWhy) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here and could not be made: " << cpu.error().message;
    ScopedUserDir user;
    ui::AppOptions o = headless_options("histogram/atomic_histogram.cu");
    o.backend = "cpu";
    auto host = start_settled(o, {});
    ASSERT_TRUE(host);
    const ui::DrawnPlot& p = host->workspace().output_panel().drawn_plot();
    ASSERT_TRUE(p.valid);
    EXPECT_FALSE(p.strip);
    EXPECT_NE(p.strip_note.find("many threads add to each element"), std::string::npos) << p.strip_note;
}
