// The docked layout, measured on headless frames: the output gets the largest area (at 1920x1080 with text
// size 1.75 at least 60% of the width) and no panel is cut off; closing panels gives their space to the
// output; View > Reset layout brings every panel back where it was; dragging a splitter resizes.
#include "ui_test_support.h"

#include "support/scoped_env.h"
#include "ui/state/settings.h"
#include "ui/dock_layout.h"
#include "ui/panels/editor_panel.h"
#include "ui/panels/presentation_view.h"
#include "ui/workspace.h"
#include "ui/theme.h"
#include "ui/state/user_dirs.h"
#include "core/kernel_file/kernel_spec.h"
#include "support/process.h"

#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

using namespace cp;
using namespace cp::uitest;

namespace {

const char* kLayoutPanels[] = {"Library", "Editor",      "Parameters", "Launch", "Output",  "Timing",
                         "Console", "Device",      "Launch view", "Occupancy", "Sweep", "Streams"};

std::unique_ptr<ui::AppHost> start(int width, int height, float text_size) {
    ui::Settings s;
    s.font_scale = text_size;
    EXPECT_TRUE(ui::save_settings(ui::config_dir() / "settings.json", s).ok());
    ui::AppOptions o = headless_options();
    o.width = width;
    o.height = height;
    auto h = ui::AppHost::create(o, host_kernels_factory());
    EXPECT_TRUE(h.ok()) << h.error().full();
    if (!h.ok()) return nullptr;
    settle(**h);
    return std::move(*h);
}

// A panel's window, brought to the front of its tab group.
ImGuiWindow* show(ui::AppHost& host, const char* title) {
    host.workspace().show_panel(title);
    // Selected, laid out, then laid out again with its scrollbar (which appears a frame after the content, and
    // wrapped text settles to the narrower width a frame after that).
    for (int i = 0; i < 5; ++i) host.frame();
    return ImGui::FindWindowByName(title);
}

// Every panel lies inside the screen, is big enough to use, and its contents fit its width (content wider
// than the window, without a horizontal scrollbar, would be cut off at the right edge).
void expect_nothing_cut_off(ui::AppHost& host, int width, int height) {
    for (const char* title : kLayoutPanels) {
        ImGuiWindow* w = show(host, title);
        ASSERT_NE(w, nullptr) << title;
        // CP_UI_TEST_SHOTS=folder keeps a screenshot per panel for a person to look at.
        if (const char* dir = std::getenv("CP_UI_TEST_SHOTS"))
            if (auto shot = host.screenshot())
                render::write_png(std::string(dir) + "/layout_" + std::to_string(width) + "_" + title + ".png", *shot);
        const Rect r = window_rect(title);
        EXPECT_GE(r.x0, 0) << title;
        EXPECT_GE(r.y0, 0) << title;
        EXPECT_LE(r.x1, width) << title;
        EXPECT_LE(r.y1, height) << title;
        EXPECT_GE(r.width(), 300) << title << " is too narrow to use";
        EXPECT_GE(r.height(), 150) << title << " is too short to use";
        const float visible = w->InnerRect.GetWidth() - w->WindowPadding.x * 2;
        EXPECT_TRUE(w->ScrollbarX || w->ContentSize.x <= visible + 1.0f)
            << title << ": contents " << w->ContentSize.x << " px wide in " << visible << " px";
    }
}

}  // namespace

TEST(Layout, AtFullHdWithLargeTextTheOutputGetsMostOfTheWidthAndNothingIsCutOff) {
    ScopedUserDir user;
    auto host = start(1920, 1080, 1.75f);
    ASSERT_TRUE(host);
    const Rect out = window_rect("Output");
    std::printf("[layout] 1920x1080, text size 1.75: Output panel at (%d, %d), %d x %d = %.1f%% of the width, %.1f%% of "
                "the height\n",
                out.x0, out.y0, out.width(), out.height(), 100.0 * out.width() / 1920, 100.0 * out.height() / 1080);
    EXPECT_GE(out.width(), int(0.6 * 1920));
    EXPECT_GE(out.height(), int(0.5 * 1080));
    expect_nothing_cut_off(*host, 1920, 1080);
}

// A machine without DejaVu (the GPU test machine has no Debian fonts) gets Dear ImGui's built-in font, whose
// text is wider at the same size: rows wrap there too, and nothing is cut off.
TEST(Layout, WithTheBuiltInFontNothingIsCutOffEither) {
    ScopedUserDir user;
    cp::test::TempDir no_fonts;
    std::unique_ptr<ui::AppHost> host;
    {
        // Restored (not unset) afterwards: a machine whose fonts live in CUDA_PLAYGROUND_FONT_DIR keeps them for
        // the tests after this one.
        cp::test::ScopedEnv fonts("CUDA_PLAYGROUND_FONT_DIR", no_fonts.path().string());
        host = start(1920, 1080, 1.75f);
    }
    ASSERT_TRUE(host);
    bool builtin = false;
    for (const auto& e : host->workspace().console().entries())
        builtin = builtin || e.text.find("built-in") != std::string::npos;
    EXPECT_TRUE(builtin) << "the console should say the built-in font is used";
    expect_nothing_cut_off(*host, 1920, 1080);
}

TEST(Layout, TheDefaultAtTheDefaultSizeToo) {
    ScopedUserDir user;
    auto host = start(1600, 1000, 1.0f);
    ASSERT_TRUE(host);
    const Rect out = window_rect("Output");
    EXPECT_GE(out.width(), int(0.6 * 1600));
    for (const char* title : kLayoutPanels) {
        show(*host, title);
        const Rect r = window_rect(title);
        // The Launch view is a tab of the output's own group (it draws the output again, with the launch over it).
        if (title != std::string("Output") && title != std::string("Launch view")) {
            EXPECT_LT(r.width() * r.height(), out.width() * out.height()) << title;
        }
    }
    expect_nothing_cut_off(*host, 1600, 1000);
}

TEST(Layout, ClosedPanelsGiveTheirSpaceToTheOutputAndResetBringsThemBack) {
    ScopedUserDir user;
    auto host = start(1600, 1000, 1.0f);
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    const Rect before = window_rect("Output");
    // Close everything under the output, as the tabs' close buttons do.
    for (const char* title : {"Parameters", "Launch", "Timing", "Occupancy", "Sweep", "Streams", "Memory"})
        ws.hide_panel(title);
    host->frame();
    host->frame();
    host->frame();
    const Rect grown = window_rect("Output");
    EXPECT_TRUE(window_rect("Parameters").width() == 0 && window_rect("Launch").width() == 0);
    EXPECT_EQ(grown.x0, before.x0);
    EXPECT_EQ(grown.width(), before.width());
    EXPECT_GT(grown.height(), before.height() + int(0.8f * ui::kBelowHeight * 1000))
        << "the output should take the space of the closed panels";

    ws.reset_layout();
    host->frame();
    host->frame();
    const Rect again = window_rect("Output");
    EXPECT_EQ(again.x0, before.x0);
    EXPECT_EQ(again.y0, before.y0);
    EXPECT_EQ(again.width(), before.width());
    EXPECT_EQ(again.height(), before.height());
    for (const char* title : kLayoutPanels) EXPECT_GT(show(*host, title) ? window_rect(title).width() : 0, 0) << title;
}

TEST(Layout, DraggingTheSplitterBesideTheOutputResizesIt) {
    ScopedUserDir user;
    auto host = start(1600, 1000, 1.0f);
    ASSERT_TRUE(host);
    const Rect before = window_rect("Output");
    // The splitter between the left column and the output is the gap just left of the output's node.
    const float x = float(before.x0) - 1.0f, y = float(before.y0 + before.height() / 2);
    ImGuiIO& io = ImGui::GetIO();
    io.AddMousePosEvent(x, y);
    host->frame();
    io.AddMouseButtonEvent(ImGuiMouseButton_Left, true);
    host->frame();
    for (int i = 1; i <= 10; ++i) {
        io.AddMousePosEvent(x - float(i) * 20.0f, y);
        host->frame();
    }
    io.AddMouseButtonEvent(ImGuiMouseButton_Left, false);
    host->frame();
    host->frame();
    const Rect after = window_rect("Output");
    EXPECT_NEAR(after.x0, before.x0 - 200, 3);
    EXPECT_NEAR(after.width(), before.width() + 200, 3);
}

// Text is drawn with DejaVu Sans (sans) and DejaVu Sans Mono (code), and after a text size change the glyphs
// are rasterised at the new pixel size (not a smaller bitmap scaled up, which blurs).
TEST(Fonts, RealFontsRasterisedAtEachTextSize) {
    ScopedUserDir user;
    auto host = start(1600, 1000, 1.0f);
    ASSERT_TRUE(host);
    ImFont* sans = ImGui::GetIO().FontDefault;
    ASSERT_NE(sans, nullptr);
    if (std::string(sans->GetDebugName()).find("DejaVuSans") == std::string::npos)
        GTEST_SKIP() << "DejaVu fonts are not installed here (fonts-dejavu-core); the app uses its built-in font";
    EXPECT_NE(std::string(ui::mono_font()->GetDebugName()).find("DejaVuSansMono"), std::string::npos);
    for (float size : {1.0f, 1.3f, 1.75f}) {
        host->workspace().adjust_font_scale(0);
        if (size != 1.0f) host->workspace().adjust_font_scale(size - 1.0f);
        host->frame();
        host->frame();
        const float pixels = ui::kBaseFontPixels * size;
        EXPECT_NEAR(ImGui::GetStyle().FontSizeBase * ImGui::GetStyle().FontScaleMain, pixels, 0.01f);
        // Glyphs baked at this size (Dear ImGui rounds it to whole pixels) exist because text was drawn at it.
        ImFontBaked* baked = sans->GetFontBaked(pixels);
        ASSERT_NE(baked, nullptr);
        EXPECT_GT(baked->Glyphs.Size, 40) << "no glyphs rasterised at " << pixels << " px";
        EXPECT_NEAR(baked->Size, std::round(pixels), 0.01f);
    }
}

// Presentation mode (F11): the output fills most of the screen next to the lesson; Ctrl+E puts the editor
// there; F11 and Esc go back to the docked panels.
TEST(Presentation, TheOutputFillsTheScreenAndTheEditorIsOneKeyAway) {
    ScopedUserDir user;
    auto host = start(1920, 1080, 1.75f);
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    press_key(*host, ImGuiKey_F11);
    host->frame();
    ASSERT_TRUE(ws.presenting());
    EXPECT_EQ(window_rect("Output").width(), 0) << "the docked panels are put away";
    EXPECT_EQ(window_rect("Editor").width(), 0);
    const ui::DrawnImage& shown = ws.output_panel().drawn_output();
    ASSERT_TRUE(shown.valid);
    const float w = shown.clip_x1 - shown.clip_x0, h = shown.clip_y1 - shown.clip_y0;
    std::printf("[layout] presentation, 1920x1080, text size 1.75: output area %.0f x %.0f = %.1f%% x %.1f%% of the "
                "screen, image zoom %.0f%%\n",
                double(w), double(h), 100.0 * w / 1920, 100.0 * h / 1080, 100.0 * shown.zoom);
    EXPECT_GE(w, 0.6f * 1920);
    EXPECT_GE(h, 0.7f * 1080);
    // The lesson column is drawn, inside the screen.
    ImGuiWindow* column = nullptr;
    for (ImGuiWindow* win : ImGui::GetCurrentContext()->Windows)
        if (win->WasActive && std::string(win->Name).find("##presented column") != std::string::npos) column = win;
    ASSERT_NE(column, nullptr);
    EXPECT_LE(column->Pos.x + column->Size.x, 1920.5f);
    auto shot = host->screenshot();
    ASSERT_TRUE(shot.ok());
    const Rect column_rect{int(column->Pos.x), int(column->Pos.y), int(column->Pos.x + column->Size.x),
                           int(column->Pos.y + column->Size.y)};
    EXPECT_GT(distinct_colors(*shot, column_rect), 20u) << "the lesson column is blank";
    if (const char* dir = std::getenv("CP_UI_TEST_SHOTS")) render::write_png(std::string(dir) + "/presentation.png", *shot);

    press_key(*host, ImGuiKey_E, true);
    host->frame();
    EXPECT_TRUE(ws.presentation_view().editor_shown());
    EXPECT_LT(ws.output_panel().drawn_output().clip_x1 - ws.output_panel().drawn_output().clip_x0, w)
        << "the editor takes a wider column";
    if (const char* dir = std::getenv("CP_UI_TEST_SHOTS"))
        if (auto s = host->screenshot()) render::write_png(std::string(dir) + "/presentation_editor.png", *s);

    press_key(*host, ImGuiKey_Escape);
    host->frame();
    EXPECT_FALSE(ws.presenting());
    EXPECT_GT(window_rect("Output").width(), 0);
    press_key(*host, ImGuiKey_F11);
    EXPECT_TRUE(ws.presenting());
    press_key(*host, ImGuiKey_F11);
    EXPECT_FALSE(ws.presenting());
}

// --show PANEL (slides, docs/make_launch_images.sh): the panel is the front tab of its group once the window
// has settled, its neighbours in other groups keep theirs; a name that is no panel is refused with a guess.
TEST(Layout, ShowBringsAPanelToTheFrontFromTheCommandLine) {
    ScopedUserDir user;
    ui::AppOptions o = headless_options();
    o.show = {"Launch view", "Occupancy"};
    auto made = ui::AppHost::create(o, host_kernels_factory());
    ASSERT_TRUE(made.ok()) << made.error().full();
    ui::AppHost& host = **made;
    settle(host);
    for (int i = 0; i < 4; ++i) host.frame();
    EXPECT_GT(window_rect("Launch view").width(), 0) << "Launch view should be its group's front tab";
    EXPECT_EQ(window_rect("Output").width(), 0) << "Output is behind the Launch view in the same group";
    EXPECT_GT(window_rect("Occupancy").width(), 0);
    EXPECT_EQ(window_rect("Launch").width(), 0);
    EXPECT_GT(window_rect("Editor").width(), 0) << "other groups keep their front tab";
    made->reset();

    o.show = {"Ocupancy"};
    auto refused = ui::AppHost::create(o, host_kernels_factory());
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().kind, ErrorKind::UserInput) << refused.error().full();
    EXPECT_NE(refused.error().message.find("`--show Ocupancy`"), std::string::npos) << refused.error().full();
    EXPECT_NE(refused.error().hint.find("did you mean `Occupancy`?"), std::string::npos) << refused.error().full();
}

// The picture first (issue 22): the default demo (a 600x400 photo that opens on its one picture, the
// comparison a tick away) is drawn at least half the window's width at 1920x1080 with text size 1.75, and
// whole (not cut by the canvas).
TEST(Layout, TheDefaultDemosPictureIsAtLeastHalfTheWindowWide) {
    ScopedUserDir user;
    auto host = start(1920, 1080, 1.75f);
    ASSERT_TRUE(host);
    for (int i = 0; i < 3; ++i) host->frame();
    const ui::DrawnImage& shown = host->workspace().output_panel().drawn_output();
    ASSERT_TRUE(shown.valid);
    const float width = shown.x1 - shown.x0;
    std::printf("[layout] 1920x1080, text size 1.75: the default demo's picture %.0f x %.0f px = %.1f%% of the width\n",
                double(width), double(shown.y1 - shown.y0), 100.0 * width / 1920);
    EXPECT_GE(width, 0.5f * 1920);
    EXPECT_TRUE(host->workspace().output_panel().drawn_columns().empty()) << "the demo opens on its one picture";
    EXPECT_GE(shown.x0, shown.clip_x0 - 0.5f);
    EXPECT_GE(shown.y0, shown.clip_y0 - 0.5f);
    EXPECT_LE(shown.x1, shown.clip_x1 + 0.5f);
    EXPECT_LE(shown.y1, shown.clip_y1 + 0.5f);
}

// `show:` (issue 22): a lesson's panels get a column of their own beside the output, in front, and the next
// lesson without `show:` gets the default layout back. Written as copies of a host-run kernel with the line.
TEST(Layout, ALessonsShowLineGivesItsPanelsAColumnBesideTheOutput) {
    ScopedUserDir user;
    cp::test::TempDir dir;
    std::string text = cp::test::read_file(cp::kernels_dir() / "basics" / "vector_add.cu");
    const size_t end = text.find("*/");
    ASSERT_NE(end, std::string::npos);
    const std::string with_show = text.substr(0, end) + "show: Console, Occupancy\n" + text.substr(end);
    const auto staged = dir.path() / "vector_add_staged.cu";
    std::ofstream(staged) << with_show;
    auto host = start(1920, 1080, 1.75f);
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    const Rect before = window_rect("Output");
    ws.open_kernel(staged);
    settle(*host);
    for (int i = 0; i < 6; ++i) host->frame();
    const Rect out = window_rect("Output"), console = window_rect("Console");
    EXPECT_GT(out.width(), 0) << "the output stays in view";
    ASSERT_GT(console.width(), 0) << "Console should be in front";
    EXPECT_EQ(window_rect("Occupancy").width(), 0) << "the second panel is the column's second tab";
    EXPECT_GE(console.x0, out.x1 - 1) << "the column is right of the output";
    EXPECT_GE(console.width(), int(0.25 * 1920));
    EXPECT_GE(console.height(), int(0.5 * 1080));
    EXPECT_NEAR(console.y0, out.y0, 2);

    // Back to a lesson without `show:`: the default layout again.
    ws.open_kernel(cp::kernels_dir() / "image" / "box_blur.cu");
    settle(*host);
    for (int i = 0; i < 4; ++i) host->frame();
    const Rect again = window_rect("Output");
    EXPECT_EQ(again.x0, before.x0);
    EXPECT_EQ(again.width(), before.width());
}

// Every name `show:` accepts is a panel's title (or Compare, the Output panel's columns).
TEST(Layout, EveryShowableNameIsAPanel) {
    ScopedUserDir user;
    auto host = start(1600, 1000, 1.0f);
    ASSERT_TRUE(host);
    for (const std::string& name : showable_panels()) {
        if (name == "Compare") continue;
        EXPECT_TRUE(host->workspace().set_panel_visible(name, true)) << name << " is no panel";
    }
}

// Presentation mode shows a comparison lesson's columns and the lesson's `show:` panels under the output.
TEST(Presentation, ShowsTheComparisonsColumnsAndTheLessonsPanels) {
    ScopedUserDir user;
    cp::test::TempDir dir;
    std::string text = cp::test::read_file(cp::kernels_dir() / "image" / "box_blur.cu");
    text.replace(text.find("show: Output"), 12, "show: Compare, Console");
    const auto lesson = dir.path() / "box_blur.cu";
    std::ofstream(lesson) << text;
    auto host = start(1920, 1080, 1.75f);
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ws.open_kernel(lesson);
    settle(*host);
    press_key(*host, ImGuiKey_F11);
    for (int i = 0; i < 3; ++i) host->frame();
    ASSERT_TRUE(ws.presenting());
    if (const char* d = std::getenv("CP_UI_TEST_SHOTS"))
        if (auto s = host->screenshot()) render::write_png(std::string(d) + "/presentation_compare.png", *s);
    ASSERT_EQ(ws.presentation_view().stage().size(), 1u);
    EXPECT_STREQ(ws.presentation_view().stage()[0]->title(), "Console");
    bool console_drawn = false;
    for (ImGuiWindow* win : ImGui::GetCurrentContext()->Windows)
        if (win->WasActive && std::string(win->Name).find("##presented panel") != std::string::npos) console_drawn = true;
    EXPECT_TRUE(console_drawn);
    // The host kernels backend runs box_blur only: the variants fail in their columns, which are still drawn.
    EXPECT_EQ(ws.output_panel().drawn_columns().size(), 3u) << "the main kernel and its two variants";
}

// The editor on a projector (issue 41): at 1920x1080 with text size 1.75 the default layout's editor shows at
// least 60 columns of code (its type shrinks to fit them, never under the base size), while the output keeps
// at least 60% of the width (AtFullHdWithLargeText... above).
TEST(Layout, AtLargeTextTheEditorShowsSixtyColumnsOfCode) {
    ScopedUserDir user;
    auto host = start(1920, 1080, 1.75f);
    ASSERT_TRUE(host);
    show(*host, "Editor");
    for (int i = 0; i < 6; ++i) host->frame();  // the type is fitted from what the frames before it showed
    const ui::EditorPanel& editor = host->workspace().editor_panel();
    const Rect ed = window_rect("Editor");
    std::printf("[layout] 1920x1080, text size 1.75: the editor (%d..%d) shows %d columns of code at %.1f px type\n",
                ed.x0, ed.x1, editor.visible_columns(), double(editor.code_size()));
    EXPECT_GE(editor.visible_columns(), 60);
    EXPECT_GE(editor.code_size(), ui::kBaseFontPixels);
    const Rect out = window_rect("Output");
    EXPECT_GE(out.width(), int(0.6 * 1920));
}

// Presentation mode cuts nothing (issue 41): the lesson column (with the Timing line and its notes) and the
// `show:` panels (the bank picture of the bank-conflict lesson at stride 8) fit their areas, their type shrinking
// where it must, after the few frames the fit takes.
TEST(Presentation, TheLessonColumnAndTheShownPanelsFitTheirAreas) {
    for (const auto& [lesson, sets] :
         std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>>{
             {"basics/thread_ids.cu", {}}, {"performance/shared_bank_conflicts.cu", {{"stride", "8"}}}}) {
        ScopedUserDir user;
        ui::AppOptions o = projector_options((cp::kernels_dir() / lesson).string());
        o.present = true;
        o.memory = true;
        o.sets = sets;
        auto host = start_settled(o, {});
        ASSERT_TRUE(host) << lesson;
        ui::Workspace& ws = host->workspace();
        ASSERT_TRUE(ws.presenting()) << lesson;
        const ui::PresentationView& view = ws.presentation_view();
        frames_until(*host, [&] { return !view.fitting() && !ws.memory().recording; }, lesson + " fitted", 60, [&]() -> std::string {
            return "column " + std::to_string(view.column_overflow()) + " at scale " + std::to_string(view.column_scale()) +
                   ", stage " + std::to_string(view.stage_overflow()) + " at share " + std::to_string(view.stage_share());
        });
        host->frame();
        std::printf("[presentation] %s: column %.2f of its height at type x%.2f; shown panels %.2f at %.0f%% of the "
                    "height, type x%.2f\n",
                    lesson.c_str(), double(view.column_overflow()), double(view.column_scale()),
                    double(view.stage_overflow()), 100.0 * double(view.stage_share()), double(view.stage_scale()));
        EXPECT_LE(view.column_overflow(), 1.0f) << lesson << ": the lesson column is cut";
        EXPECT_LE(view.stage_overflow(), 1.0f) << lesson << ": a shown panel is cut";
        EXPECT_GE(view.column_scale(), ui::FitScale::kMinScale) << lesson;
    }
}
