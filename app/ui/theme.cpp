// Themes and fonts. The fonts come from the system (fonts-dejavu-core); where there are none (e.g. a bare GPU
// server) Dear ImGui's embedded vector font stands in, so the app never depends on them.
#include "ui/theme.h"

#include <imgui.h>
#include <implot.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace cp::ui {
namespace {

ImFont* g_mono = nullptr;

// $CUDA_PLAYGROUND_FONT_DIR when set (fonts kept elsewhere; only there), else where distributions put DejaVu
// (Debian/Ubuntu, Fedora, Arch).
std::string find_font(const char* file) {
    if (const char* own = std::getenv("CUDA_PLAYGROUND_FONT_DIR"); own && *own) {
        std::error_code ec;
        const std::string path = (std::filesystem::path(own) / file).string();
        return std::filesystem::is_regular_file(path, ec) ? path : std::string();
    }
    for (const char* dir : {"/usr/share/fonts/truetype/dejavu/", "/usr/share/fonts/dejavu-sans-fonts/",
                            "/usr/share/fonts/dejavu-sans-mono-fonts/", "/usr/share/fonts/TTF/", "/usr/share/fonts/dejavu/"}) {
        std::error_code ec;
        if (std::filesystem::is_regular_file(std::string(dir) + file, ec)) return std::string(dir) + file;
    }
    return {};
}

void high_contrast_colors(ImGuiStyle& s) {
    ImGui::StyleColorsDark(&s);
    ImVec4* c = s.Colors;
    const ImVec4 black(0, 0, 0, 1), white(1, 1, 1, 1), yellow(1, 0.9f, 0.1f, 1), cyan(0.2f, 0.9f, 1, 1);
    c[ImGuiCol_Text] = white;
    c[ImGuiCol_TextDisabled] = ImVec4(0.8f, 0.8f, 0.8f, 1);
    c[ImGuiCol_WindowBg] = black;
    c[ImGuiCol_ChildBg] = black;
    c[ImGuiCol_PopupBg] = black;
    c[ImGuiCol_Border] = white;
    c[ImGuiCol_FrameBg] = ImVec4(0.1f, 0.1f, 0.1f, 1);
    c[ImGuiCol_FrameBgHovered] = ImVec4(0.25f, 0.25f, 0.1f, 1);
    c[ImGuiCol_FrameBgActive] = ImVec4(0.35f, 0.35f, 0.1f, 1);
    c[ImGuiCol_TitleBg] = ImVec4(0.15f, 0.15f, 0.15f, 1);
    c[ImGuiCol_TitleBgActive] = ImVec4(0.25f, 0.2f, 0, 1);
    c[ImGuiCol_MenuBarBg] = ImVec4(0.1f, 0.1f, 0.1f, 1);
    c[ImGuiCol_Button] = ImVec4(0.2f, 0.2f, 0.2f, 1);
    c[ImGuiCol_ButtonHovered] = ImVec4(0.45f, 0.4f, 0, 1);
    c[ImGuiCol_ButtonActive] = ImVec4(0.6f, 0.55f, 0, 1);
    c[ImGuiCol_Header] = ImVec4(0.3f, 0.3f, 0, 1);
    c[ImGuiCol_HeaderHovered] = ImVec4(0.45f, 0.4f, 0, 1);
    c[ImGuiCol_HeaderActive] = ImVec4(0.6f, 0.55f, 0, 1);
    c[ImGuiCol_CheckMark] = yellow;
    c[ImGuiCol_SliderGrab] = yellow;
    c[ImGuiCol_SliderGrabActive] = cyan;
    c[ImGuiCol_PlotLines] = yellow;
    c[ImGuiCol_PlotHistogram] = yellow;
    c[ImGuiCol_TextSelectedBg] = ImVec4(0.2f, 0.5f, 1, 0.6f);
    c[ImGuiCol_Tab] = ImVec4(0.2f, 0.2f, 0.2f, 1);
    c[ImGuiCol_TabSelected] = ImVec4(0.5f, 0.45f, 0, 1);
    c[ImGuiCol_TabHovered] = ImVec4(0.6f, 0.55f, 0, 1);
    s.FrameBorderSize = 1.0f;
    s.WindowBorderSize = 1.0f;
}

}  // namespace

const char* load_fonts() {
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();
    ImFontConfig config;
    config.OversampleH = 2;
    const std::string sans_path = find_font("DejaVuSans.ttf"), mono_path = find_font("DejaVuSansMono.ttf");
    ImFont* sans = sans_path.empty() ? nullptr : io.Fonts->AddFontFromFileTTF(sans_path.c_str(), kBaseFontPixels, &config);
    g_mono = mono_path.empty() ? nullptr : io.Fonts->AddFontFromFileTTF(mono_path.c_str(), kBaseFontPixels, &config);
    const bool both = sans && g_mono;
    if (!sans) {
        ImFontConfig fallback;
        fallback.SizePixels = kBaseFontPixels;
        sans = io.Fonts->AddFontDefaultVector(&fallback);
    }
    io.FontDefault = sans;
    if (!g_mono) g_mono = sans;
    return both ? "Fonts: DejaVu Sans and DejaVu Sans Mono"
                : "Fonts: DejaVu Sans / Sans Mono not found, using Dear ImGui's built-in font instead (install fonts-dejavu-core)";
}

ImFont* mono_font() { return g_mono; }

void apply_presentation(const Presentation& p) {
    const float scale = p.font_scale * p.content_scale;
    ImGuiStyle style;
    if (p.high_contrast) {
        high_contrast_colors(style);
    } else {
        ImGui::StyleColorsDark(&style);
        style.FrameRounding = 2.0f;
        style.WindowRounding = 3.0f;
    }
    style.ScaleAllSizes(scale);
    // Glyphs are rasterised at the final size (no scaled bitmaps), so every text size is sharp.
    style.FontSizeBase = kBaseFontPixels;
    style.FontScaleMain = p.font_scale;
    style.FontScaleDpi = p.content_scale;
    ImGui::GetStyle() = style;

    // Plots: paddings and ticks grow with the text; their colours follow Dear ImGui's.
    ImPlotStyle plot;
    for (ImVec2* v : {&plot.PlotDefaultSize, &plot.PlotMinSize, &plot.MajorTickLen, &plot.MinorTickLen, &plot.PlotPadding,
                      &plot.LabelPadding, &plot.LegendPadding, &plot.LegendInnerPadding, &plot.LegendSpacing,
                      &plot.MousePosPadding, &plot.AnnotationPadding})
        *v = ImVec2(v->x * scale, v->y * scale);
    ImPlot::GetStyle() = plot;
}

}  // namespace cp::ui
