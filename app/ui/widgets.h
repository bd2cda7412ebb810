// Small layout helpers shared by the panels: rows of buttons and checkboxes that wrap onto the next line when
// the panel is narrow (large text, a narrow dock column) instead of running off its right edge.
#pragma once

#include "render/gl_objects.h"

#include <imgui.h>

#include <cstdarg>

namespace cp::ui {

// An OpenGL texture as ImGui draws it: the OpenGL3 backend's texture ids are GL names.
inline ImTextureID texture_id(const render::Texture& t) { return ImTextureID(t.id()); }

// Widths of the usual row items at the current font size.
inline float button_width(const char* label) {
    return ImGui::CalcTextSize(label, nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2;
}
inline float checkbox_width(const char* label) {
    return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label, nullptr, true).x;
}

// Before the second and later items of a row: stay on this line when an item `width` wide still fits.
inline void same_line_if_fits(float width) {
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x < width) ImGui::NewLine();
}

// TextDisabled that wraps at the panel's edge (long hints under charts).
inline void text_disabled_wrapped(const char* fmt, ...) IM_FMTARGS(1);
inline void text_disabled_wrapped(const char* fmt, ...) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    va_list args;
    va_start(args, fmt);
    ImGui::TextWrappedV(fmt, args);
    va_end(args);
    ImGui::PopStyleColor();
}

}  // namespace cp::ui
