// Console panel drawing.
#include "ui/panels/console_panel.h"

#include "ui/theme.h"
#include "ui/widgets.h"

#include <imgui.h>
#include <imgui_stdlib.h>

namespace cp::ui {
namespace {

ImVec4 kind_color(LogKind k) {
    switch (k) {
        case LogKind::Error: return {1.0f, 0.4f, 0.35f, 1};
        case LogKind::Warning: return {1.0f, 0.8f, 0.2f, 1};
        case LogKind::Printf: return {0.55f, 0.85f, 1.0f, 1};
        case LogKind::Compile: return {0.8f, 0.8f, 0.8f, 1};
        case LogKind::Info: break;
    }
    return ImGui::GetStyleColorVec4(ImGuiCol_Text);
}

}  // namespace

void ConsolePanel::draw() {
    for (int k = 0; k < 5; ++k) {
        if (k) same_line_if_fits(checkbox_width(log_kind_name(LogKind(k))));
        ImGui::Checkbox(log_kind_name(LogKind(k)), &show_[k]);
    }
    same_line_if_fits(ImGui::GetFontSize() * 8);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    ImGui::InputTextWithHint("##filter", "filter", &filter_);
    same_line_if_fits(button_width("Clear"));
    if (ImGui::Button("Clear")) log_.clear();

    ImGui::BeginChild("##log", ImVec2(0, 0), ImGuiChildFlags_Borders);
    ImGui::PushFont(mono_font(), 0.0f);  // compiler messages and printf output line up
    const bool at_bottom = ImGui::GetScrollY() >= ImGui::GetScrollMaxY() - 1.0f;
    for (const LogEntry& e : log_.entries()) {
        if (!show_[int(e.kind)]) continue;
        if (!filter_.empty() && e.text.find(filter_) == std::string::npos) continue;
        ImGui::TextDisabled("%s", e.clock().c_str());
        ImGui::SameLine();
        ImGui::PushStyleColor(ImGuiCol_Text, kind_color(e.kind));
        ImGui::Text("%-7s", log_kind_name(e.kind));
        // A message that fits stays on its line; a longer one or several lines (printf output, a compile log)
        // start below, at the full width, and wrap there: read on a projector, not cut at the edge.
        ImGui::SameLine();
        const bool fits = e.text.find('\n') == std::string::npos &&
                          ImGui::CalcTextSize(e.text.c_str()).x <= ImGui::GetContentRegionAvail().x;
        if (!fits) {
            ImGui::NewLine();
            ImGui::Indent(ImGui::GetFontSize());
        }
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextUnformatted(e.text.c_str());
        ImGui::PopTextWrapPos();
        if (!fits) ImGui::Unindent(ImGui::GetFontSize());
        ImGui::PopStyleColor();
    }
    // Follow new messages unless the user scrolled up to read older ones.
    if (log_.added() != seen_ && at_bottom) ImGui::SetScrollHereY(1.0f);
    seen_ = log_.added();
    ImGui::PopFont();
    ImGui::EndChild();
}

}  // namespace cp::ui
