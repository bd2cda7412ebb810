// The screen checked (issue 41, item 1): a display path that drops or corrupts a picture is caught by reading a
// few of its texels back after the draw, and the window then colours its pictures on the host, so that what is on
// screen is the kernel's output; where the host's colours do not arrive either, the picture's place says so in
// words and the verdict stays. The faults are planted in the display pass (render::set_display_faults_for_tests),
// as seen on a GPU after kernels faulted in other processes; the kernels run for real.
#include "ui_test_support.h"

#include "render/display_probe.h"
#include "render/render_target.h"
#include "ui/app.h"
#include "ui/panels/output_panel.h"
#include "ui/state/console_log.h"
#include "ui/workspace.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace cp;
using namespace cp::uitest;

namespace {

// Puts the display path back as it was, whatever the test did.
struct DisplayFaultsPlanted {
    explicit DisplayFaultsPlanted(render::DisplayFaults f) {
        render::trust_display_pass_again_for_tests();
        render::set_display_faults_for_tests(f);
    }
    ~DisplayFaultsPlanted() {
        render::set_display_faults_for_tests({});
        render::trust_display_pass_again_for_tests();
    }
};

size_t entries_of_kind(ui::Workspace& ws, ui::LogKind kind) {
    size_t n = 0;
    for (const ui::LogEntry& e : ws.console().entries()) n += e.kind == kind;
    return n;
}

// Frames until the first view's picture passed a check after being coloured on the host (or says why it cannot
// be shown).
void until_checked_on_host(ui::AppHost& host) {
    ui::Workspace& ws = host.workspace();
    // The check after a change may be owed until its interval (250 ms, up to 2 s where checks cost) has passed.
    frames_until_seconds(
        host,
        [&] {
            const auto& v = ws.outputs().views();
            return !v.empty() && v[0].shading == ui::OutputView::Shading::Host && !v[0].probe &&
                   (v[0].checks_passed > 0 || !v[0].display_problem.empty());
        },
        "the picture coloured on the host and checked", 10, [&] {
            const auto& v = ws.outputs().views();
            if (v.empty()) return std::string("no view");
            return "shading " + std::to_string(int(v[0].shading)) + ", checks passed " +
                   std::to_string(v[0].checks_passed) + ", problem '" + v[0].display_problem + "'";
        });
}

}  // namespace

TEST(DisplayCheck, AGoodPictureIsCheckedAndPasses) {
    const ScopedUserDir user;
    const DisplayFaultsPlanted none({});
    auto host = start_settled(headless_options(), host_kernels_factory());
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    frames_until(*host, [&] { return !ws.displays_checking(); }, "the check of the first picture", 10);
    ASSERT_EQ(ws.outputs().views().size(), 1u);
    const ui::OutputView& v = ws.outputs().views()[0];
    EXPECT_EQ(v.shading, ui::OutputView::Shading::Gpu);
    EXPECT_GE(v.checks_passed, 1u);
    EXPECT_TRUE(v.display_problem.empty()) << v.display_problem;
    EXPECT_FALSE(render::display_pass_distrusted());
    EXPECT_EQ(entries_of_kind(ws, ui::LogKind::Warning), 0u);
}

TEST(DisplayCheck, APassThatDrawsNothingIsCaughtAndThePhotoIsShownColouredOnTheHost) {
    const ScopedUserDir user;
    const DisplayFaultsPlanted planted({true, false});
    auto host = start_settled(headless_options(), host_kernels_factory());
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    until_checked_on_host(*host);
    ASSERT_TRUE(ws.latest());
    const RunReport& r = ws.latest()->report;
    ASSERT_EQ(r.verified, std::optional<bool>(true));
    const ui::OutputView& v = ws.outputs().views().at(0);
    EXPECT_EQ(v.shading, ui::OutputView::Shading::Host);
    EXPECT_TRUE(v.display_problem.empty()) << v.display_problem;
    EXPECT_TRUE(render::display_pass_distrusted());
    EXPECT_EQ(entries_of_kind(ws, ui::LogKind::Warning), 1u) << "the Console says once why";
    show_output_at_100_percent(*host);
    EXPECT_GT(expect_screen_matches_output(*host, r.outputs.at("dst"), 600), 200u * 200u);
}

TEST(DisplayCheck, AStalePictureAfterALaunchChangeIsCaughtAndTheNewValuesAreShown) {
    const ScopedUserDir user;
    const DisplayFaultsPlanted none({});
    auto host = start_settled(headless_options("basics/thread_ids.cu"), host_kernels_factory());
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    frames_until(*host, [&] { return !ws.displays_checking(); }, "the check of the first picture", 10);
    ASSERT_EQ(ws.outputs().views().at(0).shading, ui::OutputView::Shading::Gpu);
    // From now on the pass draws nothing: the display keeps the full grid's picture while the run covers less.
    render::set_display_faults_for_tests({true, false});
    ws.inputs().choices.grid = Dim3{10, 6, 1};
    ws.inputs().touch();
    settle(*host);
    until_checked_on_host(*host);
    ASSERT_TRUE(ws.latest());
    const RunReport& r = ws.latest()->report;
    ASSERT_TRUE(r.launched);
    ASSERT_EQ(r.resolved->grid, (Dim3{10, 6, 1}));
    ASSERT_EQ(r.outputs.count("ids"), 1u);
    // The elements no thread wrote keep their -1: the picture on screen must be this run's, not the last one's.
    const HostBuffer& ids = r.outputs.at("ids");
    EXPECT_EQ(ui::element_value(ids, ids.count() - 1, 0), -1.0);
    EXPECT_EQ(ws.outputs().views().at(0).shading, ui::OutputView::Shading::Host);
    show_output_at_100_percent(*host);
    EXPECT_GT(expect_screen_matches_colormapped(*host, ids, 333, "viridis"), 200u * 100u);
}

TEST(DisplayCheck, WhenTheHostsColoursDoNotArriveEitherThePicturesPlaceSaysSoAndTheVerdictStays) {
    const ScopedUserDir user;
    const DisplayFaultsPlanted planted({true, true});
    auto host = start_settled(headless_options(), host_kernels_factory());
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    until_checked_on_host(*host);
    const ui::OutputView& v = ws.outputs().views().at(0);
    ASSERT_FALSE(v.display_problem.empty());
    ASSERT_TRUE(ws.latest());
    EXPECT_EQ(ws.latest()->report.verified, std::optional<bool>(true)) << "the check of the values stands";
    EXPECT_GE(entries_of_kind(ws, ui::LogKind::Error), 1u);
    host->frame();
    const ui::DrawnImage& d = ws.output_panel().drawn_output();
    EXPECT_FALSE(d.valid) << "no picture is drawn";
    EXPECT_EQ(d.message, v.display_problem);
    // The Output panel shows the message's dark red field, not a picture (nor the empty canvas's grey).
    auto shot = host->screenshot();
    ASSERT_TRUE(shot.ok()) << shot.error().full();
    if (const char* dir = std::getenv("CP_UI_TEST_SHOTS")) render::write_png(std::string(dir) + "/display_message.png", *shot);
    const Rect panel = window_rect("Output");
    size_t field = 0, total = 0;
    for (int y = panel.y0 + panel.height() / 3; y < panel.y1 - 10; y += 7)
        for (int x = panel.x0 + 10; x < panel.x1 - 10; x += 7) {
            const uint8_t* p = &shot->pixels[(size_t(y) * size_t(shot->width) + size_t(x)) * 4];
            field += p[0] == 60 && p[1] == 24 && p[2] == 24;
            ++total;
        }
    EXPECT_GT(field, total / 2) << field << " of " << total << " sampled pixels are the message's field";
}
