// Small layout helpers shared by the panels: rows of buttons and checkboxes that wrap onto the next line when
// the panel is narrow (large text, a narrow dock column) instead of running off its right edge.
#pragma once

#include <imgui.h>

namespace cp::ui {

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

}  // namespace cp::ui
