// The command line's chart pictures (ui/chart_pictures.h), drawn offscreen on headless EGL (Mesa llvmpipe here):
// sizes that follow the data, a 132-SM timeline with its lanes labelled, and the text a chart draws proven on
// the pixels by drawing the same chart bare (labels off) and counting the text's pixels. CP_UI_TEST_SHOTS=DIR
// keeps the pictures for a look.
#include "ui/chart_pictures.h"
#include "core/data/image_io.h"
#include "core/data/launch_images.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>

using namespace cp;

namespace {

void keep(const Image& image, const std::string& name) {
    if (const char* d = std::getenv("CP_UI_TEST_SHOTS"); d && *d) (void)save_png(std::string(d) + "/" + name, image);
}

// Pixels bright enough to be the text (the charts' text is near white; bars and the background are not).
size_t text_pixels(const Image& img) {
    size_t n = 0;
    for (size_t i = 0; i + 3 < img.pixels.size(); i += 4)
        if (img.pixels[i] > 215 && img.pixels[i + 1] > 215 && img.pixels[i + 2] > 215) ++n;
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

bool gl_available(std::string& why) {
    auto probe = ui::sweep_picture(sweep_result(), {320, 1.0f, true});
    if (!probe) why = probe.error().full();
    return bool(probe);
}

}  // namespace

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
    EXPECT_TRUE(has(pic->texts, "linear block index"));
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
    // The labels are on the pixels: thousands of text pixels more than the same chart drawn bare.
    EXPECT_GT(text_pixels(pic->image), text_pixels(plain->image) + 5000)
        << text_pixels(pic->image) << " vs " << text_pixels(plain->image);
}

TEST(ChartPictures, TheSweepChartNamesItsAxesWithUnitsAndItsShapes) {
    std::string why;
    if (!gl_available(why)) GTEST_SKIP() << "no headless OpenGL here: " << why;
    auto pic = ui::sweep_picture(sweep_result(), {1700, 1.75f, true});
    ASSERT_TRUE(pic) << pic.error().full();
    keep(pic->image, "sweep.png");
    EXPECT_EQ(pic->image.width, 1700);
    EXPECT_EQ(pic->image.height, 1700 * 9 / 16);
    for (const char* t :
         {"median time (ms)", "predicted occupancy (%)", "threads per block", "32x1x1", "fastest: block 224x1x1"})
        EXPECT_TRUE(has(pic->texts, t)) << t << " in " << testing::PrintToString(pic->texts);
    auto plain = ui::sweep_picture(sweep_result(), {1700, 1.75f, false});
    ASSERT_TRUE(plain) << plain.error().full();
    EXPECT_GT(text_pixels(pic->image), text_pixels(plain->image) + 5000)
        << text_pixels(pic->image) << " vs " << text_pixels(plain->image);
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
    // A wide map makes a low picture, a square one a tall picture.
    Image square = render_error_image(m, {152, 152});
    auto tall = ui::error_picture(m, square);
    ASSERT_TRUE(tall) << tall.error().full();
    EXPECT_GT(tall->image.height, pic->image.height + 500);
    EXPECT_TRUE(has(pic->texts, "|output - reference|"));
    EXPECT_TRUE(has(pic->texts, std::to_string(m.mismatched_elements) + " of 23,177 elements"));
    EXPECT_TRUE(has(pic->texts, "x (element column)"));
}
