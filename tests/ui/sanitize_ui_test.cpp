// The window's Sanitize (issue 10 item 3, issue 11 item 5) without a GPU: the findings of a sanitized run (a
// recorded compute-sanitizer log, the run itself on the CPU backend) become editor markers on their lines with
// the message on hover, are listed, and go when the text changes; without a GPU the button is off, says why,
// and the app goes on running.
#include "ui_test_support.h"

#include "core/engine/backend.h"
#include "core/backends/registry.h"

#include <gtest/gtest.h>
#include <imgui.h>

#include <algorithm>
#include <fstream>
#include <string>

using namespace cp;
using namespace cp::uitest;

namespace {

// The CPU backend, saying its kernels can run under a sanitizer (as the CUDA worker does where
// compute-sanitizer is installed), so the window offers Sanitize.
class SanitizerCapableCpu final : public ForwardingBackend {
public:
    using ForwardingBackend::ForwardingBackend;
    InfoResult info() override {
        InfoResult r = ForwardingBackend::info();
        r.device.caps.sanitizer = true;
        return r;
    }
};

// compute-sanitizer's memcheck log (CUDA 13's wording) for a write at vector_add.cu:`line`.
std::string recorded_log(int line) {
    return "========= COMPUTE-SANITIZER\n"
           "========= Invalid __global__ write of size 4 bytes\n"
           "=========     at vector_add+0xe0 in vector_add.cu:" + std::to_string(line) + "\n"
           "=========     by thread (231,0,0) in block (3,0,0)\n"
           "=========     Access to 0x7f69fc801fa0 is out of bounds\n"
           "=========     and is 1 bytes after the nearest allocation at 0x7f69fc801000 of size 4,000 bytes\n"
           "=========\n"
           "========= ERROR SUMMARY: 1 error\n";
}

void click_sanitize(ui::AppHost& host) {
    const ui::SanitizeState& s = host.workspace().sanitize();
    ASSERT_TRUE(s.button_shown) << "the Sanitize button is not on screen";
    click(host, (s.button_x0 + s.button_x1) * 0.5f, (s.button_y0 + s.button_y1) * 0.5f);
}

}  // namespace

TEST(SanitizeUi, FindingsBecomeEditorMarkersWithTheMessageOnHover) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here and could not be made: " << cpu.error().message;
    ScopedUserDir user;
    ui::AppOptions o = headless_options("basics/vector_add.cu");
    o.width = 1920;
    o.height = 1080;
    o.text_size = 1.0f;  // the Launch panel's Sanitize row on screen without scrolling
    o.sets = {{"n", "1000"}};
    auto made = ui::AppHost::create(o, []() -> Result<std::unique_ptr<Backend>> {
        auto cpu = find_backend("cpu")->make();
        if (!cpu) return cpu.error();
        return std::unique_ptr<Backend>(new SanitizerCapableCpu(std::move(*cpu)));
    });
    ASSERT_TRUE(made.ok()) << made.error().full();
    ui::AppHost& host = **made;
    ui::Workspace& ws = host.workspace();
    // The kernel's statement (indented), not the header's words or the reference's loop.
    const int line = line_of(document_of(ws).text(), "    c[i] = a[i] + b[i];");
    ASSERT_GT(line, 20);
    int runs = 0;
    ws.set_sanitized_backend_factory([&](const std::string& tool, const std::string& log) -> Result<std::unique_ptr<Backend>> {
        ++runs;
        EXPECT_EQ(tool, "memcheck");
        std::ofstream(log) << recorded_log(line);
        return find_backend("cpu")->make();
    });
    settle(host);
    ASSERT_TRUE(ws.sanitize().unavailable.empty()) << ws.sanitize().unavailable;
    ASSERT_TRUE(ws.editor_panel().markers().empty());
    const uint64_t live_runs = ws.runs_applied();

    ws.show_panel("Launch");
    settle(host);
    click_sanitize(host);
    settle(host);
    EXPECT_EQ(runs, 1) << "one sanitized run";
    EXPECT_EQ(ws.runs_applied(), live_runs) << "the sanitized run is not a live run: the output stays";
    const ui::SanitizeState& s = ws.sanitize();
    EXPECT_FALSE(s.failed) << s.summary;
    EXPECT_EQ(s.summary, "memcheck: 1 finding");
    ASSERT_EQ(s.findings.size(), 1u);
    EXPECT_EQ(s.findings[0].line, line);
    EXPECT_TRUE(console_has(ws, "Sanitize: memcheck: 1 finding"));
    EXPECT_TRUE(console_has(ws, "by thread (231,0,0) in block (3,0,0)"));

    const auto& markers = ws.editor_panel().markers();
    ASSERT_EQ(markers.size(), 1u);
    EXPECT_EQ(markers[0].line, line);
    // The sanitizer's marker (headless --sanitize lists these lines), whatever its words.
    EXPECT_EQ(markers[0].origins, std::vector<DiagnosticOrigin>{DiagnosticOrigin::Sanitizer});
    EXPECT_NE(markers[0].message.find("memcheck: Invalid __global__ write of size 4 bytes by thread (231,0,0)"),
              std::string::npos)
        << markers[0].message;

    // Hovering the line shows the finding.
    ws.show_panel("Editor");
    settle(host);
    float x0, y0, x1, y1;
    ASSERT_TRUE(ws.editor_panel().line_number_rect(line, x0, y0, x1, y1));
    ImGui::GetIO().AddMousePosEvent(x1 + 60, (y0 + y1) * 0.5f);
    host.frame();
    host.frame();
    EXPECT_NE(ws.editor_panel().hovered_marker().find("memcheck: Invalid __global__ write"), std::string::npos)
        << ws.editor_panel().hovered_marker();
    if (const char* dir = std::getenv("CP_UI_TEST_SHOTS"))
        if (auto shot = host.screenshot()) render::write_png(std::string(dir) + "/sanitize_marker.png", *shot);

    // A live re-run of the same text keeps the marker; an edit (the lines may move) drops it.
    ws.request_run();
    settle(host);
    ASSERT_EQ(ws.editor_panel().markers().size(), 1u);
    std::string text = document_of(ws).text();
    text.insert(0, "// moved down a line\n");
    ws.set_source(text, host.seconds() - 5.0);
    settle(host);
    EXPECT_TRUE(ws.editor_panel().markers().empty()) << ws.editor_panel().markers()[0].message;
}

TEST(SanitizeUi, WithoutAGpuTheButtonIsOffAndSaysWhy) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here and could not be made: " << cpu.error().message;
    ScopedUserDir user;
    ui::AppOptions o = headless_options("basics/vector_add.cu");
    o.width = 1920;
    o.height = 1080;
    o.text_size = 1.0f;  // the Launch panel's Sanitize row on screen without scrolling
    o.backend = "cpu";
    o.sets = {{"n", "1000"}};
    o.sanitize = "memcheck";  // as --sanitize memcheck asks
    auto made = ui::AppHost::create(o, {});
    ASSERT_TRUE(made.ok()) << made.error().full();
    ui::AppHost& host = **made;
    ui::Workspace& ws = host.workspace();
    settle(host);
    const std::string why = ws.sanitize().unavailable;
    EXPECT_EQ(why.rfind("Sanitize needs the CUDA backend and compute-sanitizer (CUDA toolkit); ", 0), 0u) << why;
    EXPECT_NE(why.find("cpu backend"), std::string::npos) << why;
    EXPECT_TRUE(console_has(ws, why)) << "--sanitize said why it did not run";
    EXPECT_TRUE(ws.sanitize().failed);

    // The button is there but does nothing; the app runs on.
    ws.show_panel("Launch");
    settle(host);
    const size_t lines = ws.console().entries().size();
    click_sanitize(host);
    settle(host);
    EXPECT_FALSE(ws.sanitize().requested);
    EXPECT_FALSE(ws.sanitize().running);
    EXPECT_EQ(ws.console().entries().size(), lines);
    ws.request_run();
    settle(host);
    ASSERT_TRUE(ws.latest() && ws.latest()->report.launched);
    EXPECT_EQ(ws.latest()->report.verified, std::optional<bool>(true));
    EXPECT_FALSE(ws.request_sanitize("memcheck"));
}
