// Small pieces of UI logic with exact answers: the thread that the standard mapping gives a pixel,
// library search, and keyboard shortcuts driven through a headless frame.
#include "ui_test_support.h"

#include "core/kernel_file/kernel_file.h"
#include "ui/panels/library_panel.h"
#include "ui/panels/output_panel.h"

#include <imgui_internal.h>

#include <gtest/gtest.h>
#include <imgui.h>

#include <algorithm>
#include <cstring>

using namespace cp;
using namespace cp::uitest;

TEST(ThreadOfPixel, TwoAndOneDimensionalMappings) {
    EXPECT_EQ(ui::thread_of_pixel(37, 21, 600, {38, 25, 1}, {16, 16, 1}), "blockIdx (2, 1)  threadIdx (5, 5)");
    EXPECT_EQ(ui::thread_of_pixel(3, 2, 100, {40, 1, 1}, {256, 1, 1}), "index 203: blockIdx.x 0  threadIdx.x 203");
    EXPECT_EQ(ui::thread_of_pixel(99, 9, 100, {4, 1, 1}, {256, 1, 1}), "index 999: blockIdx.x 3  threadIdx.x 231");
}

TEST(LibrarySearch, EveryWordMustMatchSomewhere) {
    auto blur = load_kernel_file(kernels_dir() / "image" / "box_blur.cu");
    ASSERT_TRUE(blur.ok());
    EXPECT_TRUE(ui::LibraryPanel::matches(*blur, ""));
    EXPECT_TRUE(ui::LibraryPanel::matches(*blur, "BLUR stencil"));
    EXPECT_TRUE(ui::LibraryPanel::matches(*blur, "image filters"));
    EXPECT_FALSE(ui::LibraryPanel::matches(*blur, "blur reduction"));
}

TEST(Shortcuts, SaveRunAndFontScaleFromTheKeyboard) {
    ScopedUserDir user;
    auto host = ui::AppHost::create(headless_options("basics/vector_add.cu"), host_kernels_factory());
    ASSERT_TRUE(host.ok()) << host.error().full();
    ui::Workspace& ws = (*host)->workspace();
    settle(**host);
    auto press = [&](ImGuiKey key, bool ctrl) { press_key(**host, key, ctrl); };
    // Ctrl+S writes the user copy (never the stock file).
    ws.set_source("// typed\n" + document_of(ws).text(), (*host)->seconds());
    press(ImGuiKey_S, true);
    EXPECT_TRUE(document_of(ws).has_user_copy());
    EXPECT_FALSE(document_of(ws).unsaved());
    // F5 runs (and verifies) again.
    const uint64_t runs = ws.runs_applied();
    press(ImGuiKey_F5, false);
    settle(**host);
    EXPECT_GT(ws.runs_applied(), runs);
    EXPECT_EQ(ws.latest()->report.verified, std::optional<bool>(true));
    // Ctrl+= / Ctrl+- / Ctrl+0.
    press(ImGuiKey_Equal, true);
    EXPECT_NEAR(ws.font_scale(), 1.1f, 1e-4);
    press(ImGuiKey_Minus, true);
    press(ImGuiKey_Minus, true);
    EXPECT_NEAR(ws.font_scale(), 0.9f, 1e-4);
    press(ImGuiKey_0, true);
    EXPECT_NEAR(ws.font_scale(), 1.0f, 1e-4);
}

namespace {

// The first window whose name contains `part` (child windows are named "<parent>/<label>_<id>").
ImGuiWindow* window_containing(const char* part) {
    for (ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
        if (w->WasActive && std::strstr(w->Name, part)) return w;
    return nullptr;
}

}  // namespace

TEST(EditorClicks, ClickingADiagnosticMovesTheCursorToItsLine) {
    ScopedUserDir user;
    auto host = ui::AppHost::create(headless_options("image/grayscale.cu"), host_kernels_factory());
    ASSERT_TRUE(host.ok()) << host.error().full();
    ui::Workspace& ws = (*host)->workspace();
    settle(**host);
    std::string text = document_of(ws).text();
    const size_t at = text.find("    uchar4 p =");
    ASSERT_NE(at, std::string::npos);
    const int line = 1 + int(std::count(text.begin(), text.begin() + long(at), '\n'));
    text.insert(at, "    not_declared_anywhere = 3;\n");
    ws.set_source(text, (*host)->seconds() - 5.0);
    settle(**host);
    ASSERT_TRUE(has_errors(ws.compile_status().diagnostics));
    EXPECT_EQ(ws.editor_panel().cursor_line(), 1);
    ImGuiWindow* list = window_containing("Editor/##diagnostics");
    ASSERT_NE(list, nullptr);
    const ImVec2 row(list->Pos.x + 40, list->Pos.y + ImGui::GetStyle().WindowPadding.y + ImGui::GetFontSize() * 0.5f);
    click(**host, row.x, row.y);
    // The click asks for focus; the editor takes it on the next frame and moves its cursor then.
    (*host)->frame();
    EXPECT_EQ(ws.editor_panel().cursor_line(), line);
    EXPECT_TRUE(ws.editor_panel().text_active()) << "the editor takes the keyboard after a jump";
}

TEST(Shortcuts, CtrlOOpensTheFileDialogAndEscapeClosesIt) {
    ScopedUserDir user;
    auto host = ui::AppHost::create(headless_options(), host_kernels_factory());
    ASSERT_TRUE(host.ok()) << host.error().full();
    settle(**host);
    press_key(**host, ImGuiKey_O, true);
    (*host)->frame();
    ImGuiWindow* dialog = ImGui::FindWindowByName("Open kernel file");
    ASSERT_NE(dialog, nullptr);
    EXPECT_TRUE(dialog->Active || dialog->WasActive);
    press_key(**host, ImGuiKey_Escape);
    (*host)->frame();
    EXPECT_FALSE(dialog->Active);
}
