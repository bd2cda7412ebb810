// draw_sanitize_controls (sanitize_controls.h).
#include "ui/panels/sanitize_controls.h"

#include "core/session/sanitize.h"

#include <imgui.h>

namespace cp::ui {

void draw_sanitize_controls(SanitizeState& state) {
    ImGui::Separator();
    const bool busy = state.requested || state.running;
    ImGui::BeginDisabled(!state.unavailable.empty() || busy);
    ImGui::SetNextItemWidth(ImGui::CalcTextSize("racecheckXXXX").x + ImGui::GetFrameHeight());
    if (ImGui::BeginCombo("##sanitizer tool", state.tool.c_str())) {
        for (const std::string& tool : sanitizer_tools()) {
            if (ImGui::Selectable(tool.c_str(), tool == state.tool)) state.tool = tool;
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", sanitizer_tool_purpose(tool).c_str());
        }
        ImGui::EndCombo();
    }
    ImGui::SameLine();
    if (ImGui::Button("Sanitize")) state.requested = true;
    state.button_shown = ImGui::IsItemVisible();
    state.button_x0 = ImGui::GetItemRectMin().x;
    state.button_y0 = ImGui::GetItemRectMin().y;
    state.button_x1 = ImGui::GetItemRectMax().x;
    state.button_y1 = ImGui::GetItemRectMax().y;
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("%s", state.unavailable.empty()
                                    ? "Run the kernel once under compute-sanitizer; findings are marked on their lines"
                                    : state.unavailable.c_str());
    if (busy) {
        ImGui::SameLine();
        ImGui::TextDisabled("running under compute-sanitizer...");
    }
    if (!state.unavailable.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::TextWrapped("%s", state.unavailable.c_str());
        ImGui::PopStyleColor();
    }
    if (state.summary.empty()) return;
    const bool clean = !state.failed && state.findings.empty();
    ImGui::PushStyleColor(ImGuiCol_Text, clean ? ImVec4(0.4f, 0.9f, 0.4f, 1) : ImVec4(1, 0.45f, 0.4f, 1));
    ImGui::TextWrapped("%s", state.summary.c_str());
    ImGui::PopStyleColor();
    for (const SanitizerFinding& f : state.findings) {
        ImGui::Bullet();
        ImGui::TextWrapped("%s", f.message().c_str());
    }
}

}  // namespace cp::ui
