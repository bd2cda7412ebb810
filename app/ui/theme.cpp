// Themes and font building. The font is Dear ImGui's built-in one (monospaced, always available, also on
// the GPU machine which has no font files), rasterised at the final pixel size so it stays sharp.
#include "ui/theme.h"

#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <cmath>

namespace cp::ui {
namespace {

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
    c[ImGuiCol_TabActive] = ImVec4(0.5f, 0.45f, 0, 1);
    c[ImGuiCol_TabHovered] = ImVec4(0.6f, 0.55f, 0, 1);
    s.FrameBorderSize = 1.0f;
    s.WindowBorderSize = 1.0f;
}

}  // namespace

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
    ImGui::GetStyle() = style;

    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();
    ImFontConfig config;
    // The built-in font is a 13 px bitmap design; whole multiples keep its pixels crisp.
    config.SizePixels = std::round(13.0f * scale);
    config.OversampleH = config.OversampleV = 1;
    config.PixelSnapH = true;
    io.Fonts->AddFontDefault(&config);
    io.FontGlobalScale = 1.0f;
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
}

}  // namespace cp::ui
