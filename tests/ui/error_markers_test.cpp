// Errors where they happen: a runtime fault with a line, a compile error and a header error are marked on
// their lines in the code editor (the marker's colour is on screen there, its message on hover), and the
// Output panel says why there is no new output instead of "No output yet".
#include "ui_test_support.h"

#include "core/engine/backend.h"

#include <gtest/gtest.h>
#include <imgui.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include "test_paths.h"
#include "core/backends/registry.h"

using namespace cp;
using namespace cp::uitest;

namespace {

std::string shots_dir() {
    const char* d = std::getenv("CP_UI_TEST_SHOTS");
    return d ? d : "";
}

}  // namespace

TEST(ErrorMarkers, AnOutOfBoundsWriteIsMarkedOnItsLineWithItsMessage) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here and could not be made: " << cpu.error().message;
    ScopedUserDir user;
    ui::AppOptions o = headless_options();
    o.open_file = std::string(CP_TEST_DATA_DIR) + "/planted_oob.cu";
    o.backend = "cpu";
    auto made = ui::AppHost::create(o, {});
    ASSERT_TRUE(made.ok()) << made.error().full();
    ui::AppHost& host = **made;
    settle(host);
    ui::Workspace& ws = host.workspace();
    ASSERT_TRUE(ws.latest().has_value());
    const RunReport& r = ws.latest()->report;
    ASSERT_TRUE(r.error.has_value()) << "the planted write must fault";
    const int line = line_of(document_of(ws).text(), "out[(long long)i + offset] = 1.0f;");
    ASSERT_GT(line, 0);
    EXPECT_EQ(r.error_line, line) << r.error->message;

    const ui::EditorPanel& editor = ws.editor_panel();
    ASSERT_EQ(editor.markers().size(), 1u);
    EXPECT_EQ(editor.markers()[0].line, line);
    EXPECT_EQ(editor.markers()[0].origins, std::vector<DiagnosticOrigin>{DiagnosticOrigin::Run});
    // The kernel compiled: the editor's "compiled in ... ms" is not an error (it was red after a fault).
    EXPECT_FALSE(ui::compile_failed(ws.compile_status()));
    EXPECT_NE(editor.markers()[0].message.find("past the end of buffer `out`"), std::string::npos)
        << editor.markers()[0].message;

    host.frame();
    auto shot = host.screenshot();
    ASSERT_TRUE(shot.ok());
    EXPECT_GT(marker_red_pixels(*shot, editor, line), 20) << "no marker drawn on line " << line;
    EXPECT_EQ(marker_red_pixels(*shot, editor, line - 1), 0) << "a marker on the line before";

    // Hovering the marked line shows its message.
    float x0, y0, x1, y1;
    ASSERT_TRUE(editor.line_number_rect(line, x0, y0, x1, y1));
    ImGui::GetIO().AddMousePosEvent(x1 + 60, (y0 + y1) * 0.5f);
    host.frame();
    host.frame();
    EXPECT_NE(editor.hovered_marker().find("past the end of buffer `out`"), std::string::npos) << editor.hovered_marker();
    if (!shots_dir().empty())
        if (auto s = host.screenshot()) render::write_png(shots_dir() + "/oob_marker.png", *s);

    // The Output panel says why nothing new is shown.
    EXPECT_EQ(ws.output_status().failure.rfind("The kernel failed: thread", 0), 0u) << ws.output_status().failure;
}

TEST(ErrorMarkers, ACompileErrorIsMarkedAndTheOutputSaysWhy) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here and could not be made: " << cpu.error().message;
    ScopedUserDir user;
    ui::AppOptions o = headless_options("basics/vector_add.cu");
    o.backend = "cpu";  // compiles for real: NVRTC's words on the CPU backend too
    o.sets = {{"n", "1000"}};
    auto made = ui::AppHost::create(o, {});
    ASSERT_TRUE(made.ok()) << made.error().full();
    ui::AppHost& host = **made;
    settle(host);
    ui::Workspace& ws = host.workspace();
    ASSERT_TRUE(ws.output_status().failure.empty()) << ws.output_status().failure;
    std::string text = document_of(ws).text();
    const size_t at = text.find("c[i] = a[i] + b[i];");
    ASSERT_NE(at, std::string::npos);
    text.replace(at, 19, "c[i] = a[i] + b[i]");  // the missing ';'
    // The statement's own line (the header's comment says "c[i] = a[i] + b[i]" too, further up).
    const int line = 1 + int(std::count(text.begin(), text.begin() + long(at), '\n'));
    ws.set_source(text, host.seconds() - 5.0);
    settle(host);
    ASSERT_TRUE(has_errors(ws.compile_status().diagnostics));
    EXPECT_TRUE(ui::compile_failed(ws.compile_status()));
    const auto& markers = ws.editor_panel().markers();
    ASSERT_FALSE(markers.empty());
    // NVRTC puts the missing ';' on the line after (the closing brace), like `compile` does.
    EXPECT_TRUE(markers[0].line == line || markers[0].line == line + 1) << markers[0].line << " vs " << line;
    EXPECT_TRUE(markers[0].from(DiagnosticOrigin::Compile));
    EXPECT_FALSE(markers[0].from(DiagnosticOrigin::Run) || markers[0].from(DiagnosticOrigin::Sanitizer));
    EXPECT_NE(markers[0].message.find("expected a \";\""), std::string::npos) << markers[0].message;
    const std::string& why = ws.output_status().failure;
    EXPECT_EQ(why.rfind("Compile error: ", 0), 0u) << why;
    EXPECT_EQ(why.find("failed:"), std::string::npos) << why;
}

TEST(ErrorMarkers, AHeaderErrorIsMarkedOnItsLine) {
    ScopedUserDir user;
    auto made = ui::AppHost::create(headless_options("basics/vector_add.cu"), host_kernels_factory());
    ASSERT_TRUE(made.ok()) << made.error().full();
    ui::AppHost& host = **made;
    settle(host);
    ui::Workspace& ws = host.workspace();
    std::string text = document_of(ws).text();
    const size_t at = text.find("block: 256");
    ASSERT_NE(at, std::string::npos);
    text.replace(at, 10, "block: lots");
    const int line = line_of(text, "block: lots");
    ws.set_source(text, host.seconds() - 5.0);
    settle(host);
    const auto& markers = ws.editor_panel().markers();
    ASSERT_FALSE(markers.empty());
    EXPECT_EQ(markers[0].line, line) << markers[0].message;
    EXPECT_EQ(ws.output_status().failure.rfind("Error in the kernel file: ", 0), 0u) << ws.output_status().failure;
}
