// A Python script opened in the window (issue 37): it runs as written, its launches are the Program panel's as a
// program's are, its NumPy arrays are pictures by their shape (the (300, 451, 3) uint8 scene as it is, the
// (300, 451) output in grey) and these pictures are on screen; a launch re-runs alone on its captured inputs; the
// editor's text is what runs; a kernel's compile error and a fault are marked on the script's own lines.
#include "ui_test_support.h"

#include "core/data/image_io.h"
#include "core/session/program_replay.h"
#include "support/process.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

using namespace cp;
using namespace cp::uitest;

namespace {

const std::string kCourse = std::string(CP_TEST_DATA_DIR) + "/scripts/course";
const std::string kPitfalls = std::string(CP_TEST_DATA_DIR) + "/scripts/pitfalls";

std::string file_text(const std::string& path) { return test::read_file(path); }

// The 1-based line of `text` holding `needle` (the first).
int line_holding(const std::string& text, const std::string& needle) {
    const size_t at = text.find(needle);
    if (at == std::string::npos) return 0;
    return int(std::count(text.begin(), text.begin() + std::ptrdiff_t(at), '\n')) + 1;
}

size_t pixels_near(const Image& image, Rect r, int red, int green, int blue, int tolerance) {
    size_t n = 0;
    for (int y = std::max(r.y0, 0); y < std::min(r.y1, image.height); ++y)
        for (int x = std::max(r.x0, 0); x < std::min(r.x1, image.width); ++x) {
            const uint8_t* p = &image.pixels[(size_t(y) * size_t(image.width) + size_t(x)) * size_t(image.channels)];
            if (std::abs(p[0] - red) <= tolerance && std::abs(p[1] - green) <= tolerance &&
                std::abs(p[2] - blue) <= tolerance)
                ++n;
        }
    return n;
}

// The grey level the course's kernel gives an RGB pixel (its integer weights), computed here.
uint8_t grey_of(uint8_t r, uint8_t g, uint8_t b) { return uint8_t((77 * r + 150 * g + 29 * b) >> 8); }

std::unique_ptr<ui::AppHost> settled_script(const std::string& path) {
    auto host = start_settled(projector_options(path), {});
    if (!host) return nullptr;
    host->workspace().program_run().wait_until_done();
    host->frame();
    EXPECT_TRUE(host->workspace().program().last().has_value()) << path;
    return host;
}

TEST(ScriptWindow, AScriptsLaunchShowsItsArraysAsPicturesOnScreen) {
    ScopedUserDir user;
    auto host = settled_script(kCourse + "/07_grayscale.py");
    ASSERT_TRUE(host && host->workspace().program().last());
    ui::Workspace& ws = host->workspace();
    const ProgramRun& run = *ws.program().last();
    EXPECT_EQ(run.end, ProgramRun::End::Returned);
    EXPECT_EQ(run.exit_status, 0) << run.stdout_text << run.stderr_text;
    EXPECT_NE(run.stdout_text.find("check: True"), std::string::npos) << run.stdout_text;
    ASSERT_EQ(run.launches.size(), 1u);
    const ProgramLaunch& l = run.launches[0];
    EXPECT_EQ(l.line, line_holding(file_text(kCourse + "/07_grayscale.py"), "rgb_to_gray(drv.In(image)"));
    ASSERT_EQ(l.buffers.size(), 2u);
    const ProgramBuffer& rgb = l.buffers[0];
    const ProgramBuffer& gray = l.buffers[1];
    EXPECT_EQ(rgb.dtype, "uint8");
    EXPECT_EQ(rgb.shape, (std::vector<uint64_t>{300, 451, 3}));
    EXPECT_EQ(gray.dtype, "uint8");
    EXPECT_EQ(gray.shape, (std::vector<uint64_t>{300, 451}));
    ASSERT_TRUE(rgb.captured && gray.captured && gray.has_after);

    // What the launch wrote is the grey of what it read, pixel by pixel (computed here from the captured input).
    const std::vector<std::byte> in = captured_bytes(ws.program().capture(), rgb.before_at, rgb.bytes);
    const std::vector<std::byte> out = captured_bytes(ws.program().capture(), gray.after_at, gray.bytes);
    ASSERT_EQ(in.size(), size_t(300 * 451 * 3));
    ASSERT_EQ(out.size(), size_t(300 * 451));
    size_t sun = 0;  // the scene's sun: its pixels' grey, on screen below
    for (size_t p = 0; p < out.size(); ++p) {
        const uint8_t r = uint8_t(in[3 * p]), g = uint8_t(in[3 * p + 1]), b = uint8_t(in[3 * p + 2]);
        ASSERT_EQ(uint8_t(out[p]), grey_of(r, g, b)) << "pixel " << p;
        sun += std::abs(int(grey_of(r, g, b)) - grey_of(255, 220, 90)) <= 8;
    }
    EXPECT_GT(sun, 5000u);

    // On screen, in the Program panel: the scene's yellow sun (the RGB array as a picture) and its grey (the output).
    for (int i = 0; i < 3; ++i) host->frame();
    const Rect panel = window_rect("Program");
    ASSERT_GT(panel.width(), 400);
    auto shot = host->screenshot();
    ASSERT_TRUE(shot.ok());
    const size_t yellow = pixels_near(*shot, panel, 255, 220, 90, 20);
    EXPECT_GT(yellow, 1000u);
    // The grey sun is in the same rows as the yellow one, to its right (the output's picture in the same row; no
    // text there, whose white is near that grey).
    Rect sun_rows = panel;
    sun_rows.y0 = panel.y1;
    sun_rows.y1 = panel.y0;
    for (int y = panel.y0; y < panel.y1; ++y)
        for (int x = panel.x0; x < panel.x1; ++x)
            if (pixels_near(*shot, Rect{x, y, x + 1, y + 1}, 255, 220, 90, 20)) {
                sun_rows.y0 = std::min(sun_rows.y0, y);
                sun_rows.y1 = std::max(sun_rows.y1, y + 1);
                sun_rows.x0 = std::max(sun_rows.x0, x + 1);
            }
    const uint8_t g = grey_of(255, 220, 90);
    EXPECT_GT(pixels_near(*shot, sun_rows, g, g, g, 8), yellow / 2);
    if (const char* dir = std::getenv("CP_TEST_SCREENSHOT_DIR")) save_png(std::filesystem::path(dir) / "script_launch.png", *shot);

    // Re-run alone on its captured inputs: with 8x8 blocks (a grid of its own) it writes what the script's launch
    // wrote; with width 200 the columns from 200 on stay as they were before the launch (zeros).
    ui::ProgramRunState& state = ws.program_run();
    ReplayChanges smaller_blocks;
    smaller_blocks.block = Dim3{8, 8, 1};
    smaller_blocks.grid = Dim3{57, 38, 1};
    state.start_replay(0, smaller_blocks, {});
    state.wait_replay();
    host->frame();
    ASSERT_TRUE(state.last_replay().has_value());
    EXPECT_TRUE(state.last_replay()->result.ran) << state.last_replay()->result.error->message;
    ASSERT_EQ(state.last_replay()->result.buffers.size(), 2u);
    EXPECT_EQ(state.last_replay()->result.buffers[1].differing_bytes, 0u);

    ReplayChanges narrower;
    const int width = 200;
    narrower.scalars[2].resize(4);
    std::memcpy(narrower.scalars[2].data(), &width, 4);
    state.start_replay(0, narrower, {});
    state.wait_replay();
    host->frame();
    const LaunchReplay& rr = state.last_replay()->result;
    ASSERT_TRUE(rr.ran);
    uint64_t differing = 0;
    for (size_t p = 0; p < out.size(); ++p) {
        // The kernel with width 200 writes gray[y * 200 + x] for x < 200: the first 200 * 300 bytes, as a narrower
        // picture; what it leaves is zero.
        const size_t y = p / 200, x = p % 200;
        const uint8_t now = p < size_t(200 * 300) ? grey_of(uint8_t(in[3 * (y * 200 + x)]), uint8_t(in[3 * (y * 200 + x) + 1]),
                                                            uint8_t(in[3 * (y * 200 + x) + 2]))
                                                  : 0;
        differing += now != uint8_t(out[p]);
    }
    ASSERT_EQ(rr.buffers.size(), 2u);
    EXPECT_EQ(rr.buffers[1].differing_bytes, differing);
    EXPECT_GT(differing, 0u);
}

// The window runs the editor's text, saved or not: a weight changed in the kernel makes the script's own check
// fail, and the launch's module is the edited kernel.
TEST(ScriptWindow, TheEditorsTextIsWhatRuns) {
    ScopedUserDir user;
    auto host = settled_script(kCourse + "/07_grayscale.py");
    ASSERT_TRUE(host && host->workspace().program().last());
    ui::Workspace& ws = host->workspace();
    EXPECT_EQ(ws.program().last()->exit_status, 0);
    std::string edited = file_text(kCourse + "/07_grayscale.py");
    const size_t at = edited.find("(77 * r + 150 * g + 29 * b)");
    ASSERT_NE(at, std::string::npos);
    edited.replace(at, 3, "(78");
    ui::ProgramRunState& state = ws.program_run();
    state.start(edited, kCourse + "/07_grayscale.py", 2, {});
    state.wait_until_done();
    host->frame();
    const ProgramRun& run = *ws.program().last();
    EXPECT_EQ(run.exit_status, 1);
    EXPECT_NE(run.stdout_text.find("check: False"), std::string::npos) << run.stdout_text;
    ASSERT_EQ(run.launches.size(), 1u);
    EXPECT_NE(run.launches[0].module_source.find("(78 * r"), std::string::npos);
}

// A compile error in a script's kernel is marked on the script's line; so is the line a launch faulted on (the
// CPU backend stops the missing bounds check's first write past the end).
TEST(ScriptWindow, ErrorsAreMarkedOnTheScriptsLines) {
    ScopedUserDir user;
    const std::string good = file_text(kCourse + "/07_grayscale.py");
    const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "script_window_errors";
    std::filesystem::create_directories(dir);
    std::string bad = good;
    const size_t at = bad.find("gray[p] = (unsigned char)");
    ASSERT_NE(at, std::string::npos);
    bad.insert(at + std::strlen("gray[p] = (unsigned char)"), "undefined_weight + ");
    const int bad_line = line_holding(bad, "undefined_weight");
    { std::ofstream(dir / "bad_gray.py") << bad; }
    {
        auto host = settled_script((dir / "bad_gray.py").string());
        ASSERT_TRUE(host && host->workspace().program().last());
        ui::Workspace& ws = host->workspace();
        EXPECT_EQ(ws.program().last()->exit_status, 1);
        EXPECT_TRUE(ws.program().last()->launches.empty());
        bool marked = false;
        for (const Diagnostic& d : ws.compile_status().diagnostics)
            marked |= d.line == bad_line && d.severity == Severity::Error && d.origin == DiagnosticOrigin::Compile;
        EXPECT_TRUE(marked) << "no compile error marked on line " << bad_line;
    }
    {
        auto host = settled_script(kPitfalls + "/missing_bounds_check.py");
        ASSERT_TRUE(host && host->workspace().program().last());
        ui::Workspace& ws = host->workspace();
        const ProgramRun& run = *ws.program().last();
        ASSERT_EQ(run.launches.size(), 1u);
        ASSERT_TRUE(run.launches[0].error.has_value());
        EXPECT_EQ(run.launches[0].error->kind, ErrorKind::OutOfBounds);
        const int fault_line = line_holding(file_text(kPitfalls + "/missing_bounds_check.py"), "c[i] = a[i] + b[i];");
        bool marked = false;
        for (const Diagnostic& d : ws.compile_status().diagnostics)
            marked |= d.line == fault_line && d.origin == DiagnosticOrigin::Run;
        EXPECT_TRUE(marked) << "no fault marked on line " << fault_line;
    }
}

}  // namespace
