// The command line's chart pictures (ui/chart_pictures.h), drawn offscreen on headless EGL (Mesa llvmpipe here):
// sizes that follow the data, a 132-SM timeline with its lanes labelled, and the text a chart draws proven on
// the pixels by drawing the same chart bare (labels off) and counting the text's pixels. CP_UI_TEST_SHOTS=DIR
// keeps the pictures for a look.
#include "ui_test_support.h"

#include "core/data/image_io.h"
#include "core/session/launch_images.h"
#include "ui/chart_pictures.h"

#include <gtest/gtest.h>
#include <implot.h>
#include <implot_internal.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>

using namespace cp;

namespace {

void keep(const Image& image, const std::string& name) {
    if (const char* d = std::getenv("CP_UI_TEST_SHOTS"); d && *d) (void)save_png(std::string(d) + "/" + name, image);
}

// Pixels bright enough to be text (the charts' text is near white; bars, colour scales and the background are
// not) in the part of the picture between fractions x0..x1 of its width and y0..y1 of its height.
size_t text_pixels(const Image& img, double x0 = 0, double y0 = 0, double x1 = 1, double y1 = 1) {
    size_t n = 0;
    for (int y = int(y0 * img.height); y < int(y1 * img.height); ++y)
        for (int x = int(x0 * img.width); x < int(x1 * img.width); ++x) {
            const uint8_t* p = img.pixels.data() + (size_t(y) * size_t(img.width) + size_t(x)) * 4;
            n += p[0] > 215 && p[1] > 215 && p[2] > 215;
        }
    return n;
}

size_t distinct_colours(const Image& img) {
    std::set<uint32_t> colours;
    for (size_t i = 0; i + 3 < img.pixels.size(); i += 4)
        colours.insert(uint32_t(img.pixels[i]) << 16 | uint32_t(img.pixels[i + 1]) << 8 | img.pixels[i + 2]);
    return colours.size();
}

bool has(const std::vector<std::string>& texts, const std::string& needle) {
    return std::any_of(texts.begin(), texts.end(),
                       [&](const std::string& t) { return t.find(needle) != std::string::npos; });
}

// An H100-like launch: 1,003 blocks (not a multiple of the 132 SMs) handed out in waves, 3.5 us each.
LaunchTrace sm_trace() {
    LaunchTrace t;
    t.unit = "sm";
    const uint64_t base = 1'000'000'000;
    for (uint64_t b = 0; b < 1003; ++b) {
        const uint64_t start = base + (b / 132) * 4000 + (b % 7) * 100;
        t.blocks.push_back({b, uint32_t(b % 132), start, start + 3500});
    }
    t.units_used = 132;
    return t;
}

SweepResult sweep_result() {
    SweepResult r;
    r.kernel = "vector_add";
    r.backend = "cpu";
    r.device = "test";
    r.repeats = 3;
    for (int i = 1; i <= 13; ++i) {
        SweepConfig c;
        c.block = Dim3{uint32_t(32 * i), 1, 1};
        c.grid = Dim3{uint32_t((20011 + 32 * i - 1) / (32 * i)), 1, 1};
        c.median_ms = 1.0 + 0.1 * std::abs(i - 7);
        c.predicted.occupancy = i % 3 == 0 ? 1.0 : 0.75;
        r.configs.push_back(c);
    }
    r.best = 6;
    return r;
}

// The host kernels with a trace: each block on worker (block % 3), one after another, 2 us each.
class TracingBackend : public uitest::ForwardingBackend {
public:
    TracingBackend() : ForwardingBackend(uitest::make_host_kernels_backend()) {}
    LaunchResult launch(const LaunchRequest& r) override {
        LaunchResult out = ForwardingBackend::launch(r);
        if (!r.trace || !out.ok) return out;
        out.trace_unit = "worker";
        for (uint64_t b = 0; b < r.grid.count(); ++b)
            out.trace.push_back({b, uint32_t(b % 3), 1000 + b * 2000, 1000 + b * 2000 + 1900});
        return out;
    }
};

bool gl_available(std::string& why) {
    auto probe = ui::sweep_picture(sweep_result(), {320, 1.0f, true});
    if (!probe) why = probe.error().full();
    return bool(probe);
}

}  // namespace

// The blocks' colour scale is labelled at whole block indices, each once: 0 to 5 for 6 blocks (it read 0, 0, 1, 2,
// 2, 2, 3), and for 1003 blocks ticks at a whole step from 0, none past the last block.
TEST(ChartPictures, TheBlockScaleIsLabelledAtWholeBlockIndicesEachOnce) {
    std::string why;
    if (!gl_available(why)) GTEST_SKIP() << "no headless OpenGL here: " << why;
    auto numbers = [](const std::vector<std::string>& texts) {
        std::vector<long> out;
        for (const std::string& t : texts)
            if (!t.empty() && t.find_first_not_of("0123456789") == std::string::npos) out.push_back(std::stol(t));
        return out;
    };
    LaunchTrace six;
    six.unit = "sm";
    for (uint64_t b = 0; b < 6; ++b) six.blocks.push_back({b, uint32_t(b % 2), 1000 + b * 500, 1400 + b * 500});
    six.units_used = 2;
    auto small = ui::timeline_picture(six);
    ASSERT_TRUE(small) << small.error().full();
    keep(small->image, "timeline_6_blocks.png");
    EXPECT_EQ(numbers(small->texts), (std::vector<long>{0, 1, 2, 3, 4, 5})) << testing::PrintToString(small->texts);

    auto large = ui::timeline_picture(sm_trace());
    ASSERT_TRUE(large) << large.error().full();
    const std::vector<long> ticks = numbers(large->texts);
    ASSERT_GE(ticks.size(), 3u) << testing::PrintToString(large->texts);
    EXPECT_EQ(ticks.front(), 0);
    const long step = ticks[1] - ticks[0];
    EXPECT_GT(step, 1);
    for (size_t i = 1; i < ticks.size(); ++i) EXPECT_EQ(ticks[i] - ticks[i - 1], step) << i;
    EXPECT_LE(ticks.back(), 1002);
    EXPECT_GT(ticks.back() + step, 1002);
}

TEST(ChartPictures, ATimelineOf132SmsHasLabelledLanesAMicrosecondAxisAndABlockScale) {
    std::string why;
    if (!gl_available(why)) GTEST_SKIP() << "no headless OpenGL here: " << why;
    auto pic = ui::timeline_picture(sm_trace());
    ASSERT_TRUE(pic) << pic.error().full();
    keep(pic->image, "timeline_132_sms.png");
    EXPECT_EQ(pic->image.width, 1920);
    // Every lane gets at least 7 pixels: 132 lanes need more than 924 of the picture's height.
    EXPECT_GE(pic->image.height, 132 * 7);
    EXPECT_LE(pic->image.height, 1400);
    EXPECT_TRUE(has(pic->texts, "SM 0")) << testing::PrintToString(pic->texts);
    EXPECT_TRUE(has(pic->texts, "(\xC2\xB5s)"));
    EXPECT_TRUE(has(pic->texts, "block index"));
    EXPECT_TRUE(has(pic->texts, "1,003 blocks on 132 SMs"));
    // Not every lane is labelled at this height (the labels would overlap), but more than a handful are.
    const auto lanes = std::count_if(pic->texts.begin(), pic->texts.end(),
                                     [](const std::string& t) { return t.rfind("SM ", 0) == 0; });
    EXPECT_GE(lanes, 8);
    EXPECT_LT(lanes, 132);
    EXPECT_GT(distinct_colours(pic->image), 200u);  // the blocks' colour scale, not a flat picture

    ui::PictureOptions bare;
    bare.labels = false;
    auto plain = ui::timeline_picture(sm_trace(), bare);
    ASSERT_TRUE(plain) << plain.error().full();
    EXPECT_EQ(plain->image.height, pic->image.height);
    EXPECT_TRUE(plain->texts.empty());
    // The labels are on the pixels: thousands of text pixels more than the same chart drawn bare, and where the
    // axes are: the lanes' names left of the plot, the time ticks and the axis label under it.
    EXPECT_GT(text_pixels(pic->image), text_pixels(plain->image) + 5000)
        << text_pixels(pic->image) << " vs " << text_pixels(plain->image);
    const size_t lane_names = text_pixels(pic->image, 0, 0.1, 0.08, 0.85),
                 bare_left = text_pixels(plain->image, 0, 0.1, 0.08, 0.85);
    EXPECT_GT(lane_names, bare_left + 1000) << lane_names << " vs " << bare_left;
    const size_t time_axis = text_pixels(pic->image, 0.1, 0.92, 0.8, 1),
                 bare_bottom = text_pixels(plain->image, 0.1, 0.92, 0.8, 1);
    EXPECT_GT(time_axis, bare_bottom + 1000) << time_axis << " vs " << bare_bottom;
}

TEST(ChartPictures, TheSweepChartNamesItsAxesWithUnitsAndItsShapes) {
    std::string why;
    if (!gl_available(why)) GTEST_SKIP() << "no headless OpenGL here: " << why;
    auto pic = ui::sweep_picture(sweep_result(), {1700, 1.75f, true});
    ASSERT_TRUE(pic) << pic.error().full();
    keep(pic->image, "sweep.png");
    EXPECT_EQ(pic->image.width, 1700);
    EXPECT_EQ(pic->image.height, 1700 * 9 / 16);
    for (const char* t : {"median time (ms)", "predicted occupancy (%)", "threads per block", "fastest: block 224x1x1",
                          "3 timed launches"})
        EXPECT_TRUE(has(pic->texts, t)) << t << " in " << testing::PrintToString(pic->texts);
    // 1D shapes by their thread count: 13 of them fit 1700 px at text size 1.75, each one labelled.
    for (int i = 1; i <= 13; ++i)
        EXPECT_NE(std::find(pic->texts.begin(), pic->texts.end(), std::to_string(32 * i)), pic->texts.end()) << 32 * i;
    auto plain = ui::sweep_picture(sweep_result(), {1700, 1.75f, false});
    ASSERT_TRUE(plain) << plain.error().full();
    EXPECT_GT(text_pixels(pic->image), text_pixels(plain->image) + 5000)
        << text_pixels(pic->image) << " vs " << text_pixels(plain->image);
    // The time axis's numbers and name left of the plot, the shapes and their axis's name under it.
    const size_t left = text_pixels(pic->image, 0, 0.15, 0.045, 0.85),
                 bare_left = text_pixels(plain->image, 0, 0.15, 0.045, 0.85);
    EXPECT_GT(left, bare_left + 400) << left << " vs " << bare_left;
    const size_t bottom = text_pixels(pic->image, 0.05, 0.92, 0.95, 1),
                 bare_bottom = text_pixels(plain->image, 0.05, 0.92, 0.95, 1);
    EXPECT_GT(bottom, bare_bottom + 1000) << bottom << " vs " << bare_bottom;
}

TEST(ChartPictures, AnErrorMapKeepsItsShapeAndHasItsScale) {
    std::string why;
    if (!gl_available(why)) GTEST_SKIP() << "no headless OpenGL here: " << why;
    ErrorMap m;
    m.buffer = "dst";
    m.elements = 301 * 77;
    m.tolerance = 1e-3;
    m.abs_error.assign(m.elements, 0.0f);
    for (uint64_t i = 5; i < m.elements; i += 997) m.abs_error[i] = 0.25f;
    m.mismatched_elements = (m.elements - 5 + 996) / 997;
    m.max_abs_error = 0.25;
    const Image map = render_error_image(m, {301, 77});
    auto pic = ui::error_picture(m, map);
    ASSERT_TRUE(pic) << pic.error().full();
    keep(pic->image, "error_map.png");
    EXPECT_EQ(pic->image.width, 1920);
    // A wide map makes a low picture, a square one a tall picture, with row 0 at the top as in the output: here
    // only rows 0..14 of 152 are wrong, so the bright (magma's top) pixels are all in the picture's upper part.
    ErrorMap top = m;
    top.elements = 152 * 152;
    top.abs_error.assign(top.elements, 0.0f);
    for (uint64_t i = 0; i < 152 * 15; ++i) top.abs_error[i] = 0.25f;
    top.mismatched_elements = 152 * 15;
    auto tall = ui::error_picture(top, render_error_image(top, {152, 152}));
    ASSERT_TRUE(tall) << tall.error().full();
    keep(tall->image, "error_map_top_rows.png");
    EXPECT_GT(tall->image.height, pic->image.height + 500);
    auto bright = [&](double y0, double y1) {
        size_t n = 0;
        const Image& img = tall->image;
        for (int y = int(y0 * img.height); y < int(y1 * img.height); ++y)
            for (int x = 0; x < img.width * 3 / 4; ++x) {  // left of the colour bar
                const uint8_t* p = img.pixels.data() + (size_t(y) * size_t(img.width) + size_t(x)) * 4;
                n += p[0] > 230 && p[1] > 200 && p[2] > 120 && p[2] < 210;
            }
        return n;
    };
    EXPECT_GT(bright(0, 0.3), 10000u);
    EXPECT_EQ(bright(0.3, 1), 0u);
    EXPECT_TRUE(has(pic->texts, "|output - reference|"));
    EXPECT_TRUE(has(pic->texts, std::to_string(m.mismatched_elements) + " of 23,177 elements"));
    EXPECT_TRUE(has(pic->texts, "x (element column)"));
}

// The window's Launch view draws the timeline with the same chart as timeline.png: an ImPlot plot whose lanes
// are named "worker 0"... (the CPU backend's units), not an unlabelled texture.
TEST(ChartPictures, TheLaunchViewDrawsTheSameLabelledTimeline) {
    uitest::ScopedUserDir user;
    auto host = uitest::start_settled(uitest::headless_options(), [] {
        return Result<std::unique_ptr<Backend>>(std::unique_ptr<Backend>(std::make_unique<TracingBackend>()));
    });
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ws.inputs().trace = true;
    ws.inputs().touch();
    uitest::settle(*host);
    ws.show_panel("Launch view");
    for (int i = 0; i < 4; ++i) host->frame();
    ASSERT_TRUE(ws.latest() && ws.latest()->report.trace) << "the run was not traced";
    std::vector<std::string> lanes;
    ImPlotContext& plots = *ImPlot::GetCurrentContext();
    for (int i = 0; i < plots.Plots.GetBufSize(); ++i) {
        ImPlotPlot* p = plots.Plots.GetByIndex(i);
        if (!p) continue;
        ImPlotTicker& ticks = p->Axes[ImAxis_Y1].Ticker;
        for (int t = 0; t < ticks.TickCount(); ++t)
            if (std::string(ticks.GetText(t)).rfind("worker ", 0) == 0) lanes.push_back(ticks.GetText(t));
    }
    if (auto shot = host->screenshot(); shot) keep(*shot, "launch_view_timeline.png");
    ASSERT_FALSE(lanes.empty()) << "no plot with lanes named \"worker N\"";
    EXPECT_EQ(lanes.front(), "worker 0");
}
