// A whole program opened in the window (issue 36): it runs as written on its own thread, the Program panel comes
// to the front with how it ended and the strip of its launches, and its verdict's colour on screen is the run's
// (green for a clean run, red for a launch that faulted); the editor offers no header to guess.
#include "ui_test_support.h"

#include "core/data/image_io.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace cp;
using namespace cp::uitest;

namespace {

const std::string kProgramFiles = std::string(CP_TEST_DATA_DIR) + "/programs";

ui::AppOptions program_options(const std::string& file) {
    ui::AppOptions o = headless_options();
    o.open_file = kProgramFiles + "/" + file;
    return o;
}

// Pixels in `r` within 30 levels per channel of `rgb`.
size_t program_pixels_near(const Image& image, Rect r, int red, int green, int blue) {
    size_t n = 0;
    for (int y = std::max(r.y0, 0); y < std::min(r.y1, image.height); ++y)
        for (int x = std::max(r.x0, 0); x < std::min(r.x1, image.width); ++x) {
            const uint8_t* p = &image.pixels[(size_t(y) * size_t(image.width) + size_t(x)) * size_t(image.channels)];
            if (std::abs(p[0] - red) <= 30 && std::abs(p[1] - green) <= 30 && std::abs(p[2] - blue) <= 30) ++n;
        }
    return n;
}

// The Program panel's verdict and its launch table: green where the run was clean, red where it was not.
struct ProgramVerdictPixels {
    size_t green = 0, red = 0;
};
ProgramVerdictPixels program_verdict_on_screen(ui::AppHost& host) {
    for (int i = 0; i < 3; ++i) host.frame();  // the panel brought to the front, drawn
    const Rect r = window_rect("Program");
    EXPECT_GT(r.width(), 100);
    EXPECT_GT(r.height(), 100);
    auto shot = host.screenshot();
    EXPECT_TRUE(shot.ok());
    if (!shot.ok()) return {};
    return {program_pixels_near(*shot, r, 115, 217, 115), program_pixels_near(*shot, r, 255, 102, 89)};
}

TEST(ProgramWindow, AProgramRunsAsWrittenAndItsLaunchesAreShown) {
    ScopedUserDir user;
    auto host = start_settled(program_options("reduce_two_launches.cu"), host_kernels_factory());
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    host->frame();
    ASSERT_TRUE(ws.program().last().has_value());
    const ProgramRun& r = *ws.program().last();
    EXPECT_EQ(r.end, ProgramRun::End::Returned);
    EXPECT_EQ(r.exit_status, 0);
    ASSERT_EQ(r.launches.size(), 2u);
    EXPECT_EQ(r.launches[0].grid.x, 120u);
    EXPECT_EQ(r.launches[1].grid.x, 1u);
    EXPECT_EQ(r.stdout_text, "n = 1000000, sum = 989, expected 989\nreduction correct!\n");
    const ProgramVerdictPixels v = program_verdict_on_screen(*host);
    EXPECT_GT(v.green, 200u);  // the verdict line and two "ok"s
    EXPECT_EQ(v.red, 0u);
    // No lesson picture under a "matches" label: the Output panel says where the program is.
    EXPECT_FALSE(ws.output_status().verified.has_value());
    EXPECT_FALSE(ws.output_status().failure.empty());
}

TEST(ProgramWindow, AFaultedLaunchIsRedInTheStrip) {
    ScopedUserDir user;
    auto host = start_settled(program_options("out_of_bounds.cu"), host_kernels_factory());
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    host->frame();
    ASSERT_TRUE(ws.program().last().has_value());
    const ProgramRun& r = *ws.program().last();
    ASSERT_EQ(r.launches.size(), 1u);
    ASSERT_TRUE(r.launches[0].error.has_value());
    EXPECT_EQ(r.launches[0].error->kind, ErrorKind::OutOfBounds);
    EXPECT_EQ(r.exit_status, 1);
    const ProgramVerdictPixels v = program_verdict_on_screen(*host);
    EXPECT_GT(v.red, 200u);
    EXPECT_EQ(v.green, 0u);
}

// In presentation mode the program's strip takes the output's place (a teacher projects the program, not an empty
// output, which said "No new output" in red): its green verdict is on screen, in the Presentation window.
TEST(ProgramWindow, PresentationModeShowsTheProgramsStrip) {
    ScopedUserDir user;
    auto host = start_settled(program_options("reduce_two_launches.cu"), host_kernels_factory());
    ASSERT_TRUE(host);
    host->workspace().set_presenting(true);
    for (int i = 0; i < 4; ++i) host->frame();
    const Rect r = window_rect("Presentation");
    ASSERT_GT(r.width(), 100);
    auto shot = host->screenshot();
    ASSERT_TRUE(shot.ok());
    // The verdict line and the two launches' "ok", in the left part where the output would be; nothing red.
    Rect left = r;
    left.x1 = r.x0 + r.width() / 2;
    EXPECT_GT(program_pixels_near(*shot, left, 115, 217, 115), 200u);
    EXPECT_EQ(program_pixels_near(*shot, left, 255, 102, 89), 0u);
}

}  // namespace
