// In the window: a verdict is always on screen (checked and matching, checked and wrong with what was never
// written, checking, or not checked and why), in the Output panel and in the compare columns; and editing hides
// nothing (messages name the file compiled, Describe's header runs at once, F5 on an unedited lesson writes
// nothing, a stock update is offered).
#include "ui_test_support.h"

#include "core/kernel_file/kernel_file.h"
#include "core/session/report_text.h"
#include "ui/state/kernel_document.h"
#include "ui/state/live_runner.h"
#include "ui/state/user_dirs.h"
#include "core/backends/registry.h"

#include <gtest/gtest.h>

#include <fstream>

using namespace cp;
using namespace cp::uitest;
namespace fs = std::filesystem;

namespace {

void touch_launch(ui::Workspace& ws, Dim3 block) {
    ws.inputs().choices.block = block;
    ws.inputs().touch();
}

// An edit re-runs unchecked; Revert to stock runs the library's text checked, as opening the lesson does, so the
// Output gives the verdict and not "re-run after an edit".
TEST(VerdictWindow, RevertToStockRunsTheStockTextChecked) {
    ScopedUserDir user;
    auto host = start_settled(headless_options("basics/vector_add.cu"), host_kernels_factory());
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ASSERT_NE(ws.document(), nullptr);
    const std::string stock = ws.document()->text();
    ws.set_source(stock + "// an edit\n", host->seconds() - 5.0);  // typed long enough ago: it runs now
    settle(*host);
    ASSERT_TRUE(ws.document()->has_user_copy());
    EXPECT_EQ(ws.latest()->report.not_checked_why, NotCheckedWhy::AfterEdit);
    EXPECT_FALSE(ws.output_status().verified.has_value());

    ws.take_stock();
    settle(*host);
    EXPECT_EQ(ws.document()->text(), stock);
    EXPECT_FALSE(ws.document()->has_user_copy());
    EXPECT_EQ(ws.latest()->report.not_checked_why, NotCheckedWhy::None);
    EXPECT_EQ(check_state(ws.latest()->report), CheckState::Matches);
    EXPECT_EQ(ws.output_status().verified, std::optional<bool>(true)) << ws.output_status().verification;
}

TEST(VerdictWindow, F5MatchesALaunchChangeSaysPressF5AndF5ChecksAgain) {
    ScopedUserDir user;
    auto host = start_settled(headless_options("basics/vector_add.cu"), host_kernels_factory());
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    EXPECT_EQ(ws.output_status().verified, std::optional<bool>(true)) << ws.output_status().verification;
    EXPECT_EQ(ws.output_status().verification.rfind("Matches the CPU reference", 0), 0u)
        << ws.output_status().verification;

    // A block change re-runs without the check: the old "Matches" must not stay, and the reason is on screen.
    touch_launch(ws, Dim3{96, 1, 1});
    settle(*host);
    ASSERT_EQ(ws.latest()->report.resolved->block, (Dim3{96, 1, 1}));
    EXPECT_FALSE(ws.output_status().verified.has_value());
    EXPECT_EQ(ws.latest()->report.not_checked_why, NotCheckedWhy::AfterLaunchChange);
    EXPECT_EQ(ws.output_status().verification, "Not checked: re-run after a launch change: press F5 to check.");
    EXPECT_EQ(ws.output_status().short_verdict, "not checked: press F5");

    // A parameter change says so in its own words.
    ws.inputs().choices.params["n"] = 5001;
    ws.inputs().touch();
    settle(*host);
    EXPECT_EQ(ws.latest()->report.not_checked_why, NotCheckedWhy::AfterInputsChange);
    EXPECT_EQ(ws.output_status().verification, "Not checked: re-run after a change of the inputs: press F5 to check.");
    EXPECT_EQ(ws.output_status().short_verdict, "not checked: press F5");

    // F5: checked again, with the same block.
    press_key(*host, ImGuiKey_F5);
    settle(*host);
    EXPECT_EQ(ws.output_status().verified, std::optional<bool>(true)) << ws.output_status().verification;
    EXPECT_EQ(ws.latest()->report.resolved->block, (Dim3{96, 1, 1}));
}

TEST(VerdictWindow, TheRunnerShowsCheckingUntilTheDeferredCheckComes) {
    // F5 in the window: the picture first with "Checking...", then the verdict (the runner's two answers).
    auto engine = std::make_unique<Engine>(make_host_kernels_backend());
    ui::LiveRunner runner(std::move(engine), [] {});
    auto file = load_kernel_file(kernels_dir() / "basics" / "vector_add.cu");
    ASSERT_TRUE(file.ok());
    ui::RunJob job;
    job.id = 7;
    job.file = *file;
    job.choices.params["n"] = 3001;
    job.options.verify = true;
    job.options.defer_check = true;  // as the runner sets it for the window
    ASSERT_TRUE(runner.submit(std::move(job)));
    runner.wait_until_done();
    auto outcome = runner.take_outcome();
    ASSERT_TRUE(outcome);
    RunReport shown = outcome->report;
    ASSERT_TRUE(shown.launched) << (shown.error ? shown.error->full() : "");
    EXPECT_EQ(check_state(shown), CheckState::Checking);
    EXPECT_EQ(verdict_text(shown), "Checking against the CPU reference...");
    EXPECT_EQ(short_verdict_text(shown), "checking...");
    auto checked = runner.take_check();
    ASSERT_TRUE(checked && checked->main);
    EXPECT_EQ(checked->job_id, 7u);
    take_check(shown, *checked->main);
    EXPECT_EQ(check_state(shown), CheckState::Matches);
    EXPECT_EQ(verdict_text(shown).rfind("Matches the CPU reference", 0), 0u) << verdict_text(shown);
}

TEST(VerdictWindow, AGridTooSmallForSobelIsUncheckedThenWrongWithTheNeverWrittenCount) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here and could not be made: " << cpu.error().message;
    ScopedUserDir user;
    ui::AppOptions o = headless_options("image/sobel.cu");
    o.backend = "cpu";
    auto host = start_settled(o, {});
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ASSERT_TRUE(ws.latest() && ws.latest()->report.launched);
    EXPECT_EQ(ws.output_status().verified, std::optional<bool>(true)) << ws.output_status().verification;

    // 3 x 2 blocks of 16 x 16 reach x < 48 and y < 32 only.
    ws.inputs().choices.grid = Dim3{3, 2, 1};
    ws.inputs().touch();
    settle(*host);
    EXPECT_FALSE(ws.output_status().verified.has_value()) << ws.output_status().verification;
    EXPECT_EQ(ws.latest()->report.not_checked_why, NotCheckedWhy::AfterLaunchChange);

    press_key(*host, ImGuiKey_F5);
    settle(*host);
    const RunReport& r = ws.latest()->report;
    ASSERT_TRUE(r.resolved);
    const auto w = uint64_t(r.resolved->params.at("width")), h = uint64_t(r.resolved->params.at("height"));
    const uint64_t never = w * h - std::min<uint64_t>(w, 48) * std::min<uint64_t>(h, 32);
    ASSERT_GT(never, 0u);
    EXPECT_EQ(ws.output_status().verified, std::optional<bool>(false)) << ws.output_status().verification;
    const std::string v = ws.output_status().verification;
    EXPECT_EQ(v.rfind("Differs from the CPU reference", 0), 0u) << v;
    char count[64];
    std::snprintf(count, sizeof count, "%llu", static_cast<unsigned long long>(never));
    std::string with_commas = count;
    for (int at = int(with_commas.size()) - 3; at > 0; at -= 3) with_commas.insert(size_t(at), ",");
    EXPECT_NE(v.find(with_commas + " of "), std::string::npos)
        << v << " (expected " << with_commas << " never written)";
    EXPECT_NE(v.find("never written"), std::string::npos) << v;
    ws.show_panel("Output");
    host->frame();
    EXPECT_GT(window_rect("Output").width(), 50);
}

TEST(VerdictWindow, CompareColumnsSayNotCheckedAfterALaunchChange) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here and could not be made: " << cpu.error().message;
    ScopedUserDir user;
    ui::AppOptions o = headless_options("image/grayscale.cu");
    o.backend = "cpu";
    o.sets = {{"src", (assets_dir() / "camera.png").string()}};
    auto host = start_settled(o, {});
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ASSERT_FALSE(ws.compare().columns.empty());
    for (const ui::VariantColumn& c : ws.compare().columns)
        EXPECT_EQ(c.verified, std::optional<bool>(true)) << c.name << ": " << c.verdict << c.error;
    touch_launch(ws, Dim3{8, 8, 1});
    settle(*host);
    for (const ui::VariantColumn& c : ws.compare().columns) {
        EXPECT_FALSE(c.verified.has_value()) << c.name;
        EXPECT_EQ(c.short_verdict, "not checked: press F5") << c.name << ": " << c.verdict << c.error;
    }
    EXPECT_EQ(ws.output_status().short_verdict, "not checked: press F5");
    press_key(*host, ImGuiKey_F5);
    settle(*host);
    for (const ui::VariantColumn& c : ws.compare().columns)
        EXPECT_EQ(c.verified, std::optional<bool>(true)) << c.name << ": " << c.verdict << c.error;
}

TEST(EditingWindow, F5OnALessonNeverEditedSavesNothingAndTheLibraryDoesNotSayEdited) {
    ScopedUserDir user;
    auto host = start_settled(headless_options("basics/vector_add.cu"), host_kernels_factory());
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    touch_launch(ws, Dim3{64, 1, 1});
    settle(*host);
    press_key(*host, ImGuiKey_F5);
    settle(*host);
    press_key(*host, ImGuiKey_S, true);  // Ctrl+S too
    settle(*host);
    EXPECT_FALSE(fs::exists(ui::edits_dir() / "basics" / "vector_add.cu"));
    EXPECT_FALSE(document_of(ws).has_user_copy());
    EXPECT_FALSE(console_has(ws, "Saved ")) << "nothing was written, so nothing says it was";
}

TEST(EditingWindow, CompileErrorsNameTheEditedCopyNotTheStockFile) {
    ScopedUserDir user;
    auto host = start_settled(headless_options("basics/vector_add.cu"), host_kernels_factory());
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    const fs::path stock = kernels_dir() / "basics" / "vector_add.cu";
    std::string text = document_of(ws).text();
    text.replace(text.find("c[i] = a[i] + b[i];"), 19, "c[i] = a[i] + b[i]");  // a missing ';'
    ws.set_source(text, 0);
    press_key(*host, ImGuiKey_F5);
    settle(*host);
    const fs::path copy = ui::edits_dir() / "basics" / "vector_add.cu";
    ASSERT_TRUE(fs::exists(copy));
    const auto& diags = ws.compile_status().diagnostics;
    ASSERT_FALSE(diags.empty());
    bool names_copy = false;
    for (const Diagnostic& d : diags) {
        EXPECT_NE(d.file, stock.string()) << d.str();
        names_copy |= d.file == copy.string();
    }
    EXPECT_TRUE(names_copy) << diags.front().str();
    EXPECT_TRUE(console_has(ws, copy.string() + ":")) << "the console names the edited copy";
    EXPECT_FALSE(console_has(ws, stock.string() + ":")) << "nor the stock file";
    EXPECT_NE(ws.output_status().failure.find(copy.string()), std::string::npos) << ws.output_status().failure;
}

TEST(EditingWindow, DescribeHeaderRunsAtOnceAndYourOwnFileIsSavedInPlace) {
    ScopedUserDir user;
    // vector_add without its header, in a folder of the user's.
    std::string text = test::read_file(kernels_dir() / "basics" / "vector_add.cu");
    text = text.substr(text.find("*/\n") + 3);
    text = text.substr(0, text.find("#ifdef PLAYGROUND_REFERENCE"));
    const fs::path file = user.path() / "mine" / "pasted.cu";
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
    ui::AppOptions o = headless_options();
    o.open_file = file.string();
    auto host = start_settled(o, host_kernels_factory());
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    EXPECT_NE(ws.output_status().failure.find("metadata header"), std::string::npos) << ws.output_status().failure;

    // Click Describe: the very next run is of the text with the header.
    ws.show_panel("Editor");
    host->frame();
    host->frame();
    ui::EditorPanel::ButtonRect b;
    ASSERT_TRUE(ws.editor_panel().button_rect("Describe", b)) << "the Describe button is not on screen";
    click(*host, (b.x0 + b.x1) * 0.5f, (b.y0 + b.y1) * 0.5f);
    settle(*host);
    ASSERT_NE(document_of(ws).text().find("/*@playground"), std::string::npos);
    ASSERT_TRUE(ws.latest());
    const RunReport& r = ws.latest()->report;
    EXPECT_TRUE(r.launched) << (r.error ? r.error->full() : "");
    EXPECT_EQ(ws.output_status().failure.find("metadata header"), std::string::npos) << ws.output_status().failure;
    for (const Diagnostic& d : ws.compile_status().diagnostics)
        EXPECT_EQ(d.message.find("metadata header"), std::string::npos) << d.str();
    EXPECT_EQ(ws.output_status().verification, "Not checked: there is no CPU reference.");

    // Saved in place: the file itself has the header (the CLI sees it), and no private copy was made.
    ws.save_now();
    EXPECT_NE(test::read_file(file).find("/*@playground"), std::string::npos);
    EXPECT_FALSE(fs::exists(ui::KernelDocument::user_copy_for(file, kernels_dir(), ui::edits_dir())));
}

TEST(EditingWindow, AnEditedLessonWhoseStockChangedSaysSoAndKeepMineKeepsIt) {
    ScopedUserDir user;
    // A library of its own (vector_add alone), so the test can update the stock file.
    test::TempDir lib;
    const fs::path lesson = lib.path() / "basics" / "vector_add.cu";
    fs::create_directories(lesson.parent_path());
    const std::string stock = test::read_file(kernels_dir() / "basics" / "vector_add.cu");
    std::ofstream(lesson) << stock;
    test::ScopedEnv library("CUDA_PLAYGROUND_KERNELS", lib.path().string());
    {
        auto doc = ui::KernelDocument::open(lesson, lib.path(), ui::edits_dir());
        ASSERT_TRUE(doc.ok());
        doc->set_text(stock + "// mine\n", 0);
        ASSERT_TRUE(*doc->save());
    }
    std::ofstream(lesson) << stock + "// the library's fix\n";

    ui::AppOptions o = headless_options();
    o.open_file = lesson.string();
    auto host = start_settled(o, host_kernels_factory());
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    EXPECT_EQ(document_of(ws).text(), stock + "// mine\n") << "the edits are shown, never replaced";
    EXPECT_TRUE(document_of(ws).stock_changed());
    EXPECT_TRUE(console_has(ws, "changed since you edited it"));
    ws.show_panel("Editor");
    host->frame();
    host->frame();
    ui::EditorPanel::ButtonRect b;
    ASSERT_TRUE(ws.editor_panel().button_rect("Compare", b));
    ASSERT_TRUE(ws.editor_panel().button_rect("Take the new one", b));
    ASSERT_TRUE(ws.editor_panel().button_rect("Keep mine", b)) << "the notice's buttons are not on screen";
    click(*host, (b.x0 + b.x1) * 0.5f, (b.y0 + b.y1) * 0.5f);
    settle(*host);
    EXPECT_FALSE(document_of(ws).stock_changed());
    EXPECT_EQ(test::read_file(ui::edits_dir() / "basics" / "vector_add.cu"), stock + "// mine\n");
    host->frame();
    EXPECT_FALSE(ws.editor_panel().button_rect("Keep mine", b)) << "the notice is gone";
}

}  // namespace
