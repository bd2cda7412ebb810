// Every panel legible on a projector (issue 22): at 1920x1080 with text size 1.75, on the lessons that make
// each panel's point (Streams, Console, Timing's per-device lines, Occupancy), no text is cut by the edge of
// the window or table cell it is drawn in (unless that window scrolls that way) and no text is drawn over
// other text. Measured from what Dear ImGui drew: every glyph is a textured quad of the font atlas in a draw
// command with its clip rectangle. The status bar's error stops before the frame-time readout.
#include "ui_test_support.h"

#include "core/engine/backend.h"
#include "support/scoped_env.h"
#include "ui/state/settings.h"
#include "ui/state/user_dirs.h"
#include "core/backends/registry.h"

#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace cp;
using namespace cp::uitest;

namespace {

struct Glyph {
    float x0, y0, x1, y1;  // on screen
    ImVec4 clip;           // the draw command's clip rectangle
};

// The glyphs of one draw list: quads of the font atlas with glyph texture coordinates (filled shapes use
// the atlas' white pixel, so their texture rectangle is empty), written as Dear ImGui writes a textured
// rectangle: indices base, base+1, base+2, base, base+2, base+3 over four corners clockwise from the top left.
std::vector<Glyph> glyphs_of(const ImDrawList* list) {
    std::vector<Glyph> out;
    const ImTextureData* atlas = ImGui::GetIO().Fonts->TexData;
    for (const ImDrawCmd& cmd : list->CmdBuffer) {
        if (cmd.UserCallback || cmd.TexRef._TexData != atlas || cmd.ElemCount < 6) continue;
        for (unsigned i = 0; i + 6 <= cmd.ElemCount; i += 3) {
            const ImDrawIdx* idx = list->IdxBuffer.Data + cmd.IdxOffset + i;
            const unsigned b = idx[0];
            if (idx[1] != b + 1 || idx[2] != b + 2 || idx[3] != b || idx[4] != b + 2 || idx[5] != b + 3) continue;
            const ImDrawVert* v = list->VtxBuffer.Data + cmd.VtxOffset + b;
            const bool rect = v[0].pos.y == v[1].pos.y && v[1].pos.x == v[2].pos.x && v[2].pos.y == v[3].pos.y &&
                              v[3].pos.x == v[0].pos.x;
            const bool glyph_uv = v[0].uv.x != v[2].uv.x && v[0].uv.y != v[2].uv.y;
            if (!rect || !glyph_uv) continue;
            out.push_back({std::min(v[0].pos.x, v[2].pos.x), std::min(v[0].pos.y, v[2].pos.y),
                           std::max(v[0].pos.x, v[2].pos.x), std::max(v[0].pos.y, v[2].pos.y), cmd.ClipRect});
            i += 3;  // the quad's second triangle
        }
    }
    return out;
}

struct TextProblems {
    size_t glyphs = 0;
    int cut = 0, overlapping = 0;
    std::string first;
};

// Glyphs partly outside their clip rectangle (cut: a window that scrolls that way may cut its last line or
// column), and pairs of glyphs covering each other by more than a quarter of the smaller one (text over text).
TextProblems text_problems(const ImGuiWindow* w) {
    TextProblems p;
    std::vector<Glyph> g = glyphs_of(w->DrawList);
    p.glyphs = g.size();
    const bool scrolls_x = w->ScrollMax.x > 0, scrolls_y = w->ScrollMax.y > 0;
    char text[200];
    for (const Glyph& q : g) {
        const bool visible = q.x1 > q.clip.x && q.x0 < q.clip.z && q.y1 > q.clip.y && q.y0 < q.clip.w;
        if (!visible) continue;
        const bool cut_x = q.x0 < q.clip.x - 1 || q.x1 > q.clip.z + 1;
        const bool cut_y = q.y0 < q.clip.y - 1 || q.y1 > q.clip.w + 1;
        if ((cut_x && !scrolls_x) || (cut_y && !scrolls_y)) {
            if (p.cut++ == 0) {
                std::snprintf(text, sizeof text,
                              "a glyph at (%.0f, %.0f)-(%.0f, %.0f) cut by its clip rect (%.0f, %.0f)-(%.0f, %.0f)",
                              double(q.x0), double(q.y0), double(q.x1), double(q.y1), double(q.clip.x),
                              double(q.clip.y), double(q.clip.z), double(q.clip.w));
                p.first = text;
            }
        }
    }
    std::sort(g.begin(), g.end(), [](const Glyph& a, const Glyph& b) { return a.x0 < b.x0; });
    for (size_t i = 0; i < g.size(); ++i) {
        for (size_t j = i + 1; j < g.size() && g[j].x0 < g[i].x1; ++j) {
            const float ix = std::min(g[i].x1, g[j].x1) - std::max(g[i].x0, g[j].x0);
            const float iy = std::min(g[i].y1, g[j].y1) - std::max(g[i].y0, g[j].y0);
            if (ix <= 0 || iy <= 0) continue;
            const float smaller =
                std::min((g[i].x1 - g[i].x0) * (g[i].y1 - g[i].y0), (g[j].x1 - g[j].x0) * (g[j].y1 - g[j].y0));
            if (ix * iy <= 0.25f * smaller) continue;
            if (p.overlapping++ == 0 && p.first.empty()) {
                std::snprintf(text, sizeof text, "glyphs overlapping at (%.0f, %.0f) and (%.0f, %.0f)", double(g[i].x0),
                              double(g[i].y0), double(g[j].x0), double(g[j].y0));
                p.first = text;
            }
        }
    }
    return p;
}

// The window of a panel and its child windows (named "Panel/...").
std::vector<ImGuiWindow*> windows_of(const std::string& title) {
    std::vector<ImGuiWindow*> out;
    for (ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
        if (!w->WasActive || w->Hidden) continue;
        const std::string name = w->Name;
        if (name == title || name.rfind(title + "/", 0) == 0) out.push_back(w);
    }
    return out;
}

std::unique_ptr<ui::AppHost> start_cpu(const std::string& lesson, int width, int height, float text_size,
                                       std::vector<std::pair<std::string, std::string>> sets = {}) {
    ui::Settings s;
    s.font_scale = text_size;
    EXPECT_TRUE(ui::save_settings(ui::config_dir() / "settings.json", s).ok());
    ui::AppOptions o = headless_options(lesson);
    o.width = width;
    o.height = height;
    o.backend = "cpu";
    o.sets = std::move(sets);
    auto h = ui::AppHost::create(o, {});
    EXPECT_TRUE(h.ok()) << h.error().full();
    if (!h.ok()) return nullptr;
    settle(**h);
    for (int i = 0; i < 6; ++i) (*h)->frame();
    return std::move(*h);
}

// Brings `title` to the front and checks its text; returns the glyphs it drew.
size_t expect_legible(ui::AppHost& host, const std::string& title, const std::string& lesson) {
    host.workspace().show_panel(title);
    for (int i = 0; i < 5; ++i) host.frame();
    if (const char* dir = std::getenv("CP_UI_TEST_SHOTS"))
        if (auto shot = host.screenshot()) {
            std::string name = lesson + "_" + title;
            std::replace(name.begin(), name.end(), '/', '_');
            std::replace(name.begin(), name.end(), ' ', '_');
            render::write_png(std::string(dir) + "/legible_" + name + ".png", *shot);
        }
    size_t glyphs = 0;
    const auto windows = windows_of(title);
    EXPECT_FALSE(windows.empty()) << title << " is not drawn";
    for (const ImGuiWindow* w : windows) {
        const TextProblems p = text_problems(w);
        glyphs += p.glyphs;
        EXPECT_EQ(p.cut, 0) << lesson << ", " << w->Name << ": " << p.cut << " glyphs cut off, e.g. " << p.first;
        EXPECT_EQ(p.overlapping, 0) << lesson << ", " << w->Name << ": " << p.overlapping
                                    << " glyphs over others, e.g. " << p.first;
    }
    return glyphs;
}

bool have_cpu_backend() {
    return find_backend("cpu")->make().ok();
}

}  // namespace

// The lessons whose point is a panel other than the output: that panel and every other, each in front.
TEST(Legibility, EveryPanelAtFullHdWithLargeTextOnTheLessonsThatUseIt) {
    if (!have_cpu_backend()) FAIL() << "the CPU backend is needed here and could not be made";
    ScopedUserDir user;
    cp::test::ScopedEnv devices("CUDA_PLAYGROUND_CPU_DEVICES", "2");
    const char* panels[] = {"Library", "Editor", "Parameters",  "Launch",    "Output", "Timing",
                            "Console", "Device", "Launch view", "Occupancy", "Sweep",  "Streams"};
    for (const char* lesson : {"streams/overlap.cu", "basics/printf_double.cu", "multigpu/split_across_gpus.cu"}) {
        SCOPED_TRACE(lesson);
        std::vector<std::pair<std::string, std::string>> sets;
        if (std::string(lesson) == "streams/overlap.cu") sets = {{"n", "100003"}};
        auto host = start_cpu(lesson, 1920, 1080, 1.75f, sets);
        ASSERT_TRUE(host);
        ASSERT_TRUE(host->workspace().latest().has_value());
        for (const char* title : panels) expect_legible(*host, title, lesson);
    }
}

// The per-device lines of a split run are in view in the Timing panel (the two-GPU lesson's point), not
// below its fold.
TEST(Legibility, TheTwoDeviceLessonShowsItsPerDeviceLinesInView) {
    if (!have_cpu_backend()) FAIL() << "the CPU backend is needed here and could not be made";
    ScopedUserDir user;
    cp::test::ScopedEnv devices("CUDA_PLAYGROUND_CPU_DEVICES", "2");
    auto host = start_cpu("multigpu/split_across_gpus.cu", 1920, 1080, 1.75f);
    ASSERT_TRUE(host);
    const Rect timing = window_rect("Timing");
    ASSERT_GT(timing.width(), 0) << "`show: Timing` should put the Timing panel in view";
    EXPECT_GE(timing.height(), 1080 / 2) << "the Timing panel gets a column of the output's height";
    const ui::TimingPanel* panel = host->workspace().timing_panel();
    ASSERT_NE(panel, nullptr);
    const auto& split = panel->drawn_split();
    ASSERT_TRUE(split.valid) << "no per-device lines drawn";
    EXPECT_EQ(split.devices, 2);
    EXPECT_LE(split.y1, float(timing.y1)) << "the per-device lines end below the panel's visible part";
}

// A long error in the status bar is shortened before the frame-time readout, never drawn under it.
TEST(Legibility, TheStatusBarsErrorStopsBeforeTheFrameTime) {
    if (!have_cpu_backend()) FAIL() << "the CPU backend is needed here and could not be made";
    ScopedUserDir user;
    auto host = start_cpu("mistakes/missing_bounds_check.cu", 1280, 720, 1.75f);
    ASSERT_TRUE(host);
    const ui::Workspace& ws = host->workspace();
    ASSERT_TRUE(ws.latest() && ws.latest()->report.error) << "the lesson should fail with a fault";
    const auto left = ws.status_left(), right = ws.status_right();
    EXPECT_GT(left.x1, left.x0);
    EXPECT_GT(right.x1, right.x0);
    EXPECT_LE(left.x1, right.x0) << "the error text runs under the frame-time readout";
    EXPECT_LE(right.x1, 1280.5f);
}

TEST(Legibility, StatusBarTextIsShortenedWithAnEllipsis) {
    auto width = [](const std::string& s) { return float(s.size()) * 10.0f; };  // 10 px a character
    EXPECT_EQ(ui::status_bar_fit("short", 100, width), "short");
    EXPECT_EQ(ui::status_bar_fit("0123456789abcdef", 100, width), "0123456...");
    EXPECT_EQ(ui::status_bar_fit("first line\nsecond", 100, width), "first l...");
    // A multi-byte character is cut whole: "é" is two bytes.
    EXPECT_EQ(ui::status_bar_fit("abcdeé-fghijkl", 90, width), "abcde...");
}
