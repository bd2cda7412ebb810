// Headless UI tests (EGL, no display): every panel renders in several states (normal, compile error,
// launch refused, no backend), the output image on screen equals the kernel's output, and parameter and
// launch changes reach the texture without a restart.
#include "ui_test_support.h"

#include "core/kernel_file/kernel_file.h"
#include "ui/state/user_dirs.h"
#include "core/backends/registry.h"

#include <glad/gl.h>
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>

using namespace cp;
using namespace cp::uitest;

namespace {

const char* kPanels[] = {"Library", "Editor", "Parameters", "Launch", "Output", "Timing", "Console", "Device"};

class HeadlessApp : public ::testing::Test {
protected:
    ScopedUserDir user_;
    std::unique_ptr<ui::AppHost> host_;

    void start(const ui::AppOptions& options, const ui::BackendFactory& factory) {
        auto h = ui::AppHost::create(options, factory);
        ASSERT_TRUE(h.ok()) << h.error().full();
        host_ = std::move(*h);
    }
    ui::Workspace& ws() { return host_->workspace(); }
    void settle() { uitest::settle(*host_); }
    Image screenshot() {
        auto s = host_->screenshot();
        EXPECT_TRUE(s.ok());
        return s.ok() ? *s : Image{};
    }
    // Every panel, brought to the front of its tab group in turn, is on screen with real content (text and
    // widgets: many colours, not a blank rectangle).
    void expect_panels_drawn(const char* state) {
        // CP_UI_TEST_SHOTS=folder keeps each state's screenshot for a person to look at.
        if (const char* dir = std::getenv("CP_UI_TEST_SHOTS")) {
            std::string name = std::string(dir) + "/" + state + ".png";
            std::replace(name.begin() + long(std::strlen(dir)) + 1, name.end(), ' ', '_');
            render::write_png(name, screenshot());
        }
        for (const char* title : kPanels) {
            ws().show_panel(title);
            host_->frame();
            host_->frame();
            const Image shot = screenshot();
            const Rect r = window_rect(title);
            EXPECT_GT(r.width(), 50) << state << ": panel " << title << " missing";
            EXPECT_GT(r.height(), 50) << state << ": panel " << title << " missing";
            EXPECT_GT(distinct_colors(shot, r), 8u) << state << ": panel " << title << " is blank";
        }
        EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR)) << state;
    }
    void show(const char* panel) {
        ws().show_panel(panel);
        host_->frame();
        host_->frame();
    }
    // Pixels that look like the error colour (red text / markers) inside a panel.
    size_t reddish_pixels(const Image& shot, const char* title) {
        const Rect r = window_rect(title);
        size_t n = 0;
        for (int y = std::max(r.y0, 0); y < std::min(r.y1, shot.height); ++y)
            for (int x = std::max(r.x0, 0); x < std::min(r.x1, shot.width); ++x) {
                const uint8_t* p = &shot.pixels[(size_t(y) * shot.width + x) * 4];
                if (p[0] > 200 && p[1] < 130 && p[2] < 120) ++n;
            }
        return n;
    }
};

TEST_F(HeadlessApp, DefaultDemoOutputOnScreenEqualsTheKernelOutput) {
    ui::AppOptions o = headless_options();
    o.open_file.reset();  // the start-up default: an image filter on a bundled photo
    start(o, host_kernels_factory());
    settle();
    ASSERT_TRUE(ws().document());
    EXPECT_EQ(document_of(ws()).original_path().filename(), "box_blur.cu");
    ASSERT_TRUE(ws().latest().has_value());
    const RunReport& r = ws().latest()->report;
    ASSERT_TRUE(r.launched) << (r.error ? r.error->full() : "");
    EXPECT_EQ(r.verified, std::optional<bool>(true));
    ASSERT_EQ(r.outputs.count("dst"), 1u);
    EXPECT_EQ(ws().outputs().views()[0].path, "host upload");
    show_output_at_100_percent(*host_);
    const size_t compared = expect_screen_matches_output(*host_, r.outputs.at("dst"), 600);
    EXPECT_GT(compared, 200u * 200u) << "too little of the image was visible to compare";
}

// On the CPU backend a run that shows its picture without checking it (live re-runs) hands the output over in
// place, no copy (RunOptions::read_back_in_place): the screen must still show exactly the kernel's output, here
// the box blur that the first (checked, copied) run verified against its CPU reference.
TEST_F(HeadlessApp, CpuPictureReadInPlaceOnScreenEqualsTheKernelOutput) {
    ui::AppOptions o = headless_options();
    o.backend = "cpu";
    start(o, ui::BackendFactory{});
    settle();
    ASSERT_TRUE(ws().latest().has_value());
    const RunReport& first = ws().latest()->report;
    ASSERT_TRUE(first.launched) << (first.error ? first.error->full() : "");
    ASSERT_EQ(first.verified, std::optional<bool>(true));
    ASSERT_EQ(first.outputs.count("dst"), 1u) << "a checked run reads a copy";
    const HostBuffer verified = first.outputs.at("dst");
    EXPECT_EQ(ws().outputs().views()[0].path, "host upload");

    const uint64_t shown = ws().outputs().views()[0].run;
    ws().inputs().verify = false;
    ws().inputs().touch();
    settle();
    ASSERT_GT(ws().outputs().views()[0].run, shown) << "no new run was shown";
    const RunReport& live = ws().latest()->report;
    ASSERT_TRUE(live.launched) << (live.error ? live.error->full() : "");
    EXPECT_FALSE(live.verified.has_value());
    EXPECT_EQ(live.outputs.count("dst"), 0u) << "the picture was copied";
    EXPECT_TRUE(live.outputs_in_place.empty()) << "the report kept pointers into the session's buffers";
    EXPECT_EQ(ws().outputs().views()[0].path, "host upload (in place)");
    show_output_at_100_percent(*host_);
    const size_t compared = expect_screen_matches_output(*host_, verified, 600);
    EXPECT_GT(compared, 200u * 200u) << "too little of the image was visible to compare";
}

TEST_F(HeadlessApp, ColormappedOutputOnScreenIsEachValueThroughTheColormap) {
    // thread_ids writes ints 0..66599 shown through viridis with the automatic range: a flat picture (the
    // symptom after a GPU fault) or a wrong range fails here, pixel by pixel.
    start(headless_options("basics/thread_ids.cu"), host_kernels_factory());
    settle();
    ASSERT_TRUE(ws().latest().has_value());
    const RunReport& r = ws().latest()->report;
    ASSERT_TRUE(r.launched) << (r.error ? r.error->full() : "");
    EXPECT_EQ(r.verified, std::optional<bool>(true));
    ASSERT_EQ(r.outputs.count("ids"), 1u);
    show_output_at_100_percent(*host_);
    const size_t compared = expect_screen_matches_colormapped(*host_, r.outputs.at("ids"), 333, "viridis");
    EXPECT_GT(compared, 200u * 100u) << "too little of the image was visible to compare";
}

TEST_F(HeadlessApp, EveryPanelRendersInEveryState) {
    start(headless_options(), host_kernels_factory());
    settle();
    ASSERT_TRUE(ws().latest() && ws().latest()->report.launched);
    expect_panels_drawn("after the first run");
    const uint64_t good_run = ws().outputs().views()[0].run;

    // Compile error on a known line: marked, listed, and the last good output stays.
    const std::string stock = document_of(ws()).text();
    std::string broken = stock;
    const size_t at = broken.find("    int sum[4]");
    ASSERT_NE(at, std::string::npos);
    const int broken_line = 1 + int(std::count(broken.begin(), broken.begin() + long(at), '\n'));
    broken.insert(at, "    this is not valid code;\n");
    ws().set_source(broken, host_->seconds() - 5.0);  // as if typed a while ago: the compile pause is over
    settle();
    ASSERT_TRUE(ws().latest());
    EXPECT_EQ(ws().latest()->report.failed_stage, RunStage::Compile);
    bool marked = false;
    for (const Diagnostic& d : ws().compile_status().diagnostics) marked |= d.severity == Severity::Error && d.line == broken_line;
    EXPECT_TRUE(marked) << "no error diagnostic on line " << broken_line;
    EXPECT_EQ(ws().outputs().views()[0].run, good_run) << "the last good output must stay visible";
    EXPECT_GT(ws().outputs().views()[0].display.id(), 0u);
    expect_panels_drawn("compile error");
    show("Editor");
    EXPECT_GT(reddish_pixels(screenshot(), "Editor"), 20u) << "the error is not marked in the editor";

    // Launch refused: 2048 threads per block.
    ws().set_source(stock, host_->seconds() - 5.0);
    ws().inputs().choices.block = Dim3{2048, 1, 1};
    ws().inputs().touch();
    settle();
    ASSERT_TRUE(ws().latest());
    EXPECT_EQ(ws().latest()->report.failed_stage, RunStage::Validate);
    EXPECT_EQ(ws().outputs().views()[0].run, good_run);
    expect_panels_drawn("launch refused");
    show("Launch");
    // The row under the output is short (the picture comes first): the refusal comes right under block and grid,
    // in view without scrolling.
    const Image launch_shot = screenshot();
    if (const char* dir = std::getenv("CP_UI_TEST_SHOTS")) render::write_png(std::string(dir) + "/launch_refused.png", launch_shot);
    EXPECT_GT(reddish_pixels(launch_shot, "Launch"), 20u) << "the refusal is not shown in the Launch panel";
}

TEST_F(HeadlessApp, WithoutABackendTheWindowOpensTheEditorAndCompilerWork) {
    start(headless_options(), no_backend_factory("no NVIDIA driver (test)"));
    settle();
    EXPECT_FALSE(ws().can_run());
    ASSERT_TRUE(ws().latest());
    const RunReport& r = ws().latest()->report;
    EXPECT_FALSE(r.launched);
    EXPECT_FALSE(r.error.has_value()) << r.error->full();  // compiled fine with NVRTC; not running is no error
    EXPECT_FALSE(has_errors(r.diagnostics));
    EXPECT_EQ(r.kernel, "box_blur");
    expect_panels_drawn("no backend");
    EXPECT_GT(window_rect("##banner").height(), 10) << "the no-backend banner is missing";
    EXPECT_NE(ws().device_status().why_nothing_runs.find("no NVIDIA driver"), std::string::npos);

    // The compiler still reports errors with lines.
    std::string broken = document_of(ws()).text();
    broken.insert(broken.find("    int x ="), "    undeclared_name = 1;\n");
    ws().set_source(broken, host_->seconds() - 5.0);
    settle();
    EXPECT_EQ(ws().latest()->report.failed_stage, RunStage::Compile);
    EXPECT_TRUE(has_errors(ws().compile_status().diagnostics));
    expect_panels_drawn("no backend, compile error");
}

TEST_F(HeadlessApp, ParameterAndLaunchChangesReachTheTextureWithoutRestart) {
    start(headless_options("basics/thread_ids.cu"), host_kernels_factory());
    settle();
    ASSERT_TRUE(ws().latest() && ws().latest()->report.launched);
    auto view = [&]() -> ui::OutputView& { return ws().outputs().views().at(0); };
    ASSERT_TRUE(view().raw);
    EXPECT_EQ(view().width, 333);
    EXPECT_EQ(view().raw->read_element(100, 150)[0], 150.0 * 333 + 100);

    // A parameter: the view changes size and content.
    ws().inputs().choices.params["width"] = 201;
    ws().inputs().touch();
    settle();
    ASSERT_EQ(view().width, 201);
    EXPECT_EQ(view().raw->read_element(100, 150)[0], 150.0 * 201 + 100);

    // A launch change: a 2x2 grid of 16x16 blocks covers only 32x32 elements; the rest keep constant(-1).
    ws().inputs().choices.grid = Dim3{2, 2, 1};
    ws().inputs().touch();
    settle();
    EXPECT_EQ(ws().latest()->report.resolved->grid, (Dim3{2, 2, 1}));
    EXPECT_EQ(view().raw->read_element(10, 20)[0], 20.0 * 201 + 10);
    EXPECT_EQ(view().raw->read_element(100, 150)[0], -1.0);
    expect_panels_drawn("grid too small");

    // A block change: recorded with its timing sample, output complete again.
    ws().inputs().choices.grid.reset();
    ws().inputs().choices.block = Dim3{32, 8, 1};
    ws().inputs().touch();
    settle();
    EXPECT_EQ(ws().latest()->report.resolved->block, (Dim3{32, 8, 1}));
    EXPECT_EQ(view().raw->read_element(100, 150)[0], 150.0 * 201 + 100);
    EXPECT_EQ(view().block, (Dim3{32, 8, 1}));

    // Every run left a timing sample with the launch configuration it came from.
    const auto& samples = ws().timing().samples();
    ASSERT_EQ(samples.size(), 4u);
    EXPECT_EQ(samples[0].block, (Dim3{16, 16, 1}));
    EXPECT_NE(samples[1].params.find("width=201"), std::string::npos) << samples[1].params;
    EXPECT_EQ(samples[2].grid, (Dim3{2, 2, 1}));
    EXPECT_EQ(samples[3].block, (Dim3{32, 8, 1}));
    EXPECT_EQ(samples[3].grid, (Dim3{7, 25, 1}));  // ceil(201 / 32) x ceil(200 / 8)
}

TEST_F(HeadlessApp, OneDimensionalOutputsShowAsPlotAndTable) {
    ui::AppOptions o = headless_options("basics/vector_add.cu");
    o.sets = {{"n", "5000"}};
    start(o, host_kernels_factory());
    settle();
    ASSERT_TRUE(ws().latest() && ws().latest()->report.launched);
    ASSERT_EQ(ws().outputs().views().size(), 1u);
    const ui::OutputView& v = ws().outputs().views()[0];
    EXPECT_FALSE(v.is_image());
    ASSERT_TRUE(v.host.has_value());
    EXPECT_EQ(v.host->count(), 5000u);
    expect_panels_drawn("vector_add plot");
}

TEST_F(HeadlessApp, AFileOutsideTheLibraryShowsATableAndIsSavedInPlace) {
    // vector_add with a table view of `c`, opened from a folder of the user's.
    std::string text = test::read_file(kernels_dir() / "basics" / "vector_add.cu");
    const size_t at = text.find("view c: plot");
    ASSERT_NE(at, std::string::npos);
    text.replace(at, 12, "view c: table");
    const auto file = user_.path() / "mine" / "table_view.cu";
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file) << text;
    ui::AppOptions o = headless_options();
    o.open_file = file.string();
    o.sets = {{"n", "777"}};
    start(o, host_kernels_factory());
    settle();
    ASSERT_TRUE(ws().latest() && ws().latest()->report.launched) << (ws().latest()->report.error ? ws().latest()->report.error->full() : "") << " stage "
        << run_stage_name(ws().latest()->report.failed_stage) << " problems " << ws().latest()->report.input_problems.size()
        << " diags " << ws().latest()->report.diagnostics.size();
    ASSERT_EQ(ws().outputs().views().size(), 1u);
    const ui::OutputView& v = ws().outputs().views()[0];
    EXPECT_EQ(v.spec.kind, ViewSpec::Kind::Table);
    ASSERT_TRUE(v.host.has_value());
    EXPECT_EQ(v.host->count(), 777u);
    // Its edits go into the file itself (so `run FILE` sees them), not to a private copy.
    ws().set_source("// note\n" + text, 0);
    ws().save_now();
    EXPECT_EQ(test::read_file(file), "// note\n" + text);
    EXPECT_EQ(document_of(ws()).user_copy_path(), file);
    EXPECT_FALSE(std::filesystem::exists(ui::edits_dir() / "external"));
    expect_panels_drawn("table view");
}

TEST_F(HeadlessApp, CommandLineErrorsAreReportedNotFatal) {
    ui::AppOptions o = headless_options("basics/vector_add.cu");
    o.sets = {{"nn", "5"}};
    auto h = ui::AppHost::create(o, host_kernels_factory());
    ASSERT_FALSE(h.ok());
    EXPECT_NE(h.error().message.find("unknown parameter `nn`"), std::string::npos) << h.error().full();
    EXPECT_NE(h.error().hint.find("did you mean `n`?"), std::string::npos) << h.error().full();
}

TEST_F(HeadlessApp, ScreenshotIsWrittenByRunApp) {
    const auto png = user_.path() / "shot.png";
    ui::AppOptions o = headless_options();
    o.screenshot = png.string();
    o.frames = 3;
    auto h = ui::AppHost::create(o, host_kernels_factory());
    ASSERT_TRUE(h.ok()) << h.error().full();
    EXPECT_EQ((*h)->run(), 0);
    auto img = load_image(png);
    ASSERT_TRUE(img.ok()) << img.error().full();
    EXPECT_EQ(img->width, 1600);
    EXPECT_EQ(img->height, 1000);
    EXPECT_GT(distinct_colors(*img, {0, 0, img->width, img->height}), 100u);
    // The run finished before the picture: the output panel shows the blurred photo, not "no output yet".
    EXPECT_TRUE((*h)->workspace().latest() && (*h)->workspace().latest()->report.launched);
}

}  // namespace

namespace {

// The real CPU backend (the same kernel source compiled by the host compiler): end to end through the UI.
TEST_F(HeadlessApp, CpuBackendEndToEndSourceChangeGivesNewPixels) {
    ui::AppOptions o = headless_options();
    o.backend = "cpu";
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here and could not be made: " << cpu.error().message;
    start(o, {});
    settle();
    ASSERT_TRUE(ws().latest() && ws().latest()->report.launched) << (ws().latest()->report.error ? ws().latest()->report.error->full() : "") << " stage "
        << run_stage_name(ws().latest()->report.failed_stage) << " problems " << ws().latest()->report.input_problems.size()
        << " diags " << ws().latest()->report.diagnostics.size();
    EXPECT_EQ(ws().latest()->report.backend, "cpu");
    EXPECT_EQ(ws().latest()->report.verified, std::optional<bool>(true));
    show_output_at_100_percent(*host_);
    expect_screen_matches_output(*host_, ws().latest()->report.outputs.at("dst"), 600);

    const auto before = ws().outputs().views().at(0).raw->read_element(300, 200);
    std::string text = document_of(ws()).text();
    const std::string from = "make_uchar4((sum[0] + 4) / 9,", to = "make_uchar4(255 - (sum[0] + 4) / 9,";
    ASSERT_NE(text.find(from), std::string::npos);
    text.replace(text.find(from), from.size(), to);
    ws().set_source(text, host_->seconds() - 5.0);
    settle();
    ASSERT_TRUE(ws().latest()->report.launched);
    const auto after = ws().outputs().views().at(0).raw->read_element(300, 200);
    EXPECT_EQ(after[0], 255.0 - before[0]);
    EXPECT_EQ(after[2], before[2]);
}

// The Launch panel's step choice: the Output panel shows the buffers as an earlier step left them, and says
// they are not checked (the reference is about the last step). The three-step scan: after step 1 every
// segment of 512 holds its own scan, which is the full scan minus the total before the segment.
TEST_F(HeadlessApp, StoppingAfterAStepShowsThatStepsBuffersUnchecked) {
    ui::AppOptions options = headless_options("patterns/scan_work_efficient.cu");
    options.backend = "cpu";  // the real CPU backend: the test backend's host kernels have no steps
    start(options, {});
    settle();
    ASSERT_TRUE(ws().latest());
    ASSERT_TRUE(ws().latest()->report.launched) << (ws().latest()->report.error ? ws().latest()->report.error->full() : "") << " stage "
        << run_stage_name(ws().latest()->report.failed_stage) << " problems " << ws().latest()->report.input_problems.size()
        << " diags " << ws().latest()->report.diagnostics.size();
    EXPECT_EQ(ws().latest()->report.verified, std::optional<bool>(true));
    auto values = [&] {
        const ui::OutputView& v = ws().outputs().views().at(0);
        EXPECT_TRUE(v.host.has_value());
        std::vector<double> out;
        if (v.host)
            for (size_t i = 0; i < v.host->count(); ++i) out.push_back(ui::element_value(*v.host, i, 0));
        return out;
    };
    const std::vector<double> full = values();
    ASSERT_EQ(full.size(), 200003u);

    ws().inputs().choices.until_step = 1;
    ws().inputs().touch();
    settle();
    const RunReport& r = ws().latest()->report;
    ASSERT_TRUE(r.launched);
    EXPECT_EQ(r.steps.size(), 1u);
    EXPECT_FALSE(r.verified.has_value());
    EXPECT_EQ(r.not_checked_why, NotCheckedWhy::StoppedEarly) << r.not_checked;
    const std::vector<double> first = values();
    ASSERT_EQ(first.size(), full.size());
    for (size_t i = 0; i < full.size(); ++i) {
        const double before = i < 512 ? 0 : full[(i / 512) * 512 - 1];
        ASSERT_EQ(first[i], full[i] - before) << "element " << i;
    }
    expect_panels_drawn("after step 1 of 3");

    // The last step again, run with F5: the whole scan, checked.
    ws().inputs().choices.until_step.reset();
    ws().inputs().touch();
    ws().request_run();
    settle();
    EXPECT_EQ(ws().latest()->report.verified, std::optional<bool>(true));
    EXPECT_EQ(values(), full);
}

}  // namespace
