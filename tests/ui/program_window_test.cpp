// A whole program opened in the window (issue 36): it runs as written on its own thread, the Program panel comes
// to the front with how it ended and the strip of its launches, and its verdict's colour on screen is the run's
// (green for a clean run, red for a launch that faulted); the editor offers no header to guess.
#include "ui_test_support.h"

#include "core/data/image_io.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>

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

// The window on programs/NAME with its run finished and taken (ScopedUserDir first: the host keeps its settings).
std::unique_ptr<ui::AppHost> settled_program(const std::string& name) {
    auto host = start_settled(program_options(name), host_kernels_factory());
    if (!host) return nullptr;
    host->frame();
    EXPECT_TRUE(host->workspace().program().last().has_value()) << name;
    return host;
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

// On the CPU backend, which stops the read one float past the buffer (a GPU lets it pass: tests/data/programs).
TEST(ProgramWindow, AFaultedLaunchIsRedInTheStrip) {
    ScopedUserDir user;
    ui::AppOptions options = program_options("out_of_bounds.cu");
    options.backend = "cpu";
    auto host = start_settled(options, host_kernels_factory());
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

// A launch picked in the strip re-runs alone on its captured inputs (issue 36): unchanged, the panel says in green
// that it wrote exactly what the program's launch wrote; with n = 1000 (of 1000003) it says in yellow how many bytes
// of d_c differ, which is the count of sums past element 1000 that are not zero, computed here.
TEST(ProgramWindow, APickedLaunchReRunsOnItsCapturedInputs) {
    ScopedUserDir user;
    auto host = settled_program("vector_add.cu");
    ASSERT_TRUE(host && host->workspace().program().last());
    ui::Workspace& ws = host->workspace();
    ASSERT_EQ(ws.program().last()->launches.size(), 1u);
    EXPECT_EQ(ws.program().last()->launches[0].instance, "vadd");
    ui::ProgramRunState& state = ws.program_run();

    state.start_replay(0, {}, {});
    state.wait_replay();
    for (int i = 0; i < 3; ++i) host->frame();
    ASSERT_TRUE(state.last_replay().has_value());
    EXPECT_TRUE(state.last_replay()->result.same_as_program)
        << (state.last_replay()->result.error ? state.last_replay()->result.error->message : "");
    const Rect r = window_rect("Program");
    auto same = host->screenshot();
    ASSERT_TRUE(same.ok());
    EXPECT_GT(program_pixels_near(*same, r, 115, 217, 115), 400u);  // the verdict, "ok" and the re-run's line
    EXPECT_EQ(program_pixels_near(*same, r, 255, 204, 51), 0u);

    ReplayChanges smaller;
    const int m = 1000;
    smaller.scalars[3].resize(4);
    std::memcpy(smaller.scalars[3].data(), &m, 4);
    state.start_replay(0, smaller, {});
    state.wait_replay();
    for (int i = 0; i < 3; ++i) host->frame();
    ASSERT_TRUE(state.last_replay().has_value());
    const LaunchReplay& rr = state.last_replay()->result;
    ASSERT_TRUE(rr.ran) << (rr.error ? rr.error->message : "");
    uint64_t differing = 0;
    for (int i = m; i < 1000003; ++i) {
        const float sum = float(i % 1000) + 2.0f * float(i % 77);
        uint32_t bits;
        std::memcpy(&bits, &sum, 4);
        for (int k = 0; k < 4; ++k) differing += ((bits >> (8 * k)) & 0xff) != 0;
    }
    ASSERT_EQ(rr.buffers.size(), 3u);
    EXPECT_EQ(rr.buffers[2].name, "d_c");
    EXPECT_EQ(rr.buffers[2].differing_bytes, differing);
    auto changed = host->screenshot();
    ASSERT_TRUE(changed.ok());
    EXPECT_GT(program_pixels_near(*changed, r, 255, 204, 51), 200u);  // the yellow "... differ" line
    if (const char* dir = std::getenv("CP_TEST_SCREENSHOT_DIR"))
        save_png(std::filesystem::path(dir) / "program_replay.png", *changed);
}

// "Run the program with this change": the whole program again, its launch made with n = 1000; its own check then
// fails, and the panel's verdict is red with the launch marked changed (yellow), where the first run was all green.
TEST(ProgramWindow, TheProgramRunsAgainWithAChangedLaunch) {
    ScopedUserDir user;
    auto host = settled_program("vector_add.cu");
    ASSERT_TRUE(host && host->workspace().program().last());
    ui::Workspace& ws = host->workspace();
    EXPECT_EQ(ws.program().last()->exit_status, 0);
    ui::ProgramRunState& state = ws.program_run();
    std::map<size_t, ProgramLaunchChange> changes;
    const int m = 1000;
    changes[0].scalars[3].resize(4);
    std::memcpy(changes[0].scalars[3].data(), &m, 4);
    state.start(state.last_request().source, state.last_request().path, state.last_revision(), {}, changes);
    state.wait_until_done();
    const ProgramVerdictPixels v = program_verdict_on_screen(*host);
    ASSERT_TRUE(ws.program().last().has_value());
    const ProgramRun& r = *ws.program().last();
    EXPECT_EQ(r.exit_status, 1);
    ASSERT_EQ(r.launches.size(), 1u);
    EXPECT_TRUE(r.launches[0].changed);
    EXPECT_NE(r.stdout_text.find("FAILED"), std::string::npos) << r.stdout_text;
    EXPECT_GT(v.red, 100u);  // the verdict line
    auto shot = host->screenshot();
    ASSERT_TRUE(shot.ok());
    EXPECT_GT(program_pixels_near(*shot, window_rect("Program"), 255, 204, 51), 50u);  // "vadd (changed)"
    if (const char* dir = std::getenv("CP_TEST_SCREENSHOT_DIR"))
        save_png(std::filesystem::path(dir) / "program_changed.png", *shot);
}

// "Open as a lesson" (the Program panel's button calls Workspace::open_launch_as_lesson): ripple.cu's one launch
// saved with its captured data and opened as a lesson on the CPU backend. Its Output panel shows the picture the
// launch made (the pixels on screen against the colour map of the output, computed there), checked against what
// the program's own launch wrote: the bytes the program's run captured after it.
TEST(ProgramWindow, ALaunchOpensAsALessonWithItsPictureOnScreen) {
    ScopedUserDir user;
    auto host = start_settled(projector_options(kProgramFiles + "/ripple.cu"), {});
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    host->frame();
    ASSERT_TRUE(ws.program().last().has_value());
    const ProgramRun& run = *ws.program().last();
    ASSERT_EQ(run.launches.size(), 1u);
    ASSERT_EQ(run.launches[0].buffers.size(), 1u);
    const ProgramBuffer& img = run.launches[0].buffers[0];
    const std::vector<std::byte> program_wrote = captured_bytes(ws.program().capture(), img.after_at, img.bytes);
    ASSERT_EQ(program_wrote.size(), size_t(301 * 203 * 4));

    EXPECT_EQ(ws.open_launch_as_lesson(0), "");
    host->frame();  // opened once the frame is drawn
    settle(*host);
    ASSERT_TRUE(ws.latest());
    const RunReport& report = ws.latest()->report;
    ASSERT_TRUE(report.resolved);
    EXPECT_EQ(report.resolved->grid.x, 19u);
    EXPECT_EQ(report.resolved->grid.y, 13u);
    EXPECT_EQ(report.resolved->block.x, 16u);
    EXPECT_EQ(report.verified, std::optional<bool>(true));
    EXPECT_TRUE(report.checked_against_recording);
    ASSERT_TRUE(report.outputs.count("img"));
    EXPECT_TRUE(report.outputs.at("img").bytes == program_wrote);
    show_output_at_100_percent(*host);
    EXPECT_GT(expect_screen_matches_colormapped(*host, report.outputs.at("img"), 301, "gray"), 10000u);
    if (const char* dir = std::getenv("CP_TEST_SCREENSHOT_DIR")) {
        for (int i = 0; i < 2; ++i) host->frame();
        if (auto shot = host->screenshot(); shot.ok()) save_png(std::filesystem::path(dir) / "program_lesson.png", *shot);
    }
}

}  // namespace
