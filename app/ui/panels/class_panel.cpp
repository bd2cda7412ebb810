// Class panel drawing.
#include "ui/panels/class_panel.h"

#include "ui/widgets.h"

#include <imgui.h>

#include <cmath>

namespace cp::ui {

namespace {

ImVec4 status_colour(CaseStatus s) {
    switch (s) {
        case CaseStatus::Passed: return ImVec4(0.35f, 0.8f, 0.4f, 1);
        case CaseStatus::Wrong: return ImVec4(0.95f, 0.55f, 0.25f, 1);
        default: return ImVec4(0.95f, 0.35f, 0.35f, 1);
    }
}

}  // namespace

void ClassPanel::draw() {
    if (!results_.loaded()) {
        text_disabled_wrapped("No class open. File > Open a results.json that `cuda-playground grade` wrote.");
        return;
    }
    const GradeReport& r = results_.report();
    ImGui::TextWrapped("%s: %zu students, %zu hidden cases, on %s (%s)%s%s. Points: %d correct, %d speed.",
                       r.assignment.c_str(), r.students.size(), r.case_names.size(), r.device.c_str(), r.backend.c_str(),
                       r.checks.empty() ? "" : "; checked by ", r.checks.c_str(), r.correct_points, r.speed_points);
    text_disabled_wrapped("Click a student to open their submission with the case they failed first.");
    const int columns = 3 + int(r.case_names.size()) + 1;
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_ScrollY |
                                  ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_Resizable;
    const float note_height = note_.empty() ? 0.0f : ImGui::GetTextLineHeightWithSpacing() * 2.5f;
    if (ImGui::BeginTable("##class", columns, flags, ImVec2(0, -note_height))) {
        ImGui::TableSetupScrollFreeze(1, 1);
        ImGui::TableSetupColumn("student");
        ImGui::TableSetupColumn("score");
        ImGui::TableSetupColumn("passed");
        for (const std::string& c : r.case_names) ImGui::TableSetupColumn(c.c_str());
        ImGui::TableSetupColumn("speed vs reference");
        ImGui::TableHeadersRow();
        for (size_t i = 0; i < r.students.size(); ++i) {
            const StudentResult& s = r.students[i];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::PushID(int(i));
            const bool chosen = results_.selected && *results_.selected == i;
            if (ImGui::Selectable(s.student.c_str(), chosen, ImGuiSelectableFlags_SpanAllColumns)) {
                results_.selected = i;
                note_ = open_student_(i);
            }
            ImGui::PopID();
            ImGui::TableNextColumn();
            ImGui::Text("%s", score_text(s.score).c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%d/%zu", s.passed, s.cases.size());
            double log_sum = 0;
            int timed = 0;
            bool slower = false;
            for (size_t k = 0; k < r.case_names.size(); ++k) {
                ImGui::TableNextColumn();
                if (k >= s.cases.size()) continue;
                const CaseResult& c = s.cases[k];
                ImGui::TextColored(status_colour(c.status), "%s", case_status_name(c.status));
                if (c.line > 0 && ImGui::IsItemHovered()) ImGui::SetTooltip("line %d: %s", c.line, c.message.c_str());
                if (c.speedup > 0) {
                    log_sum += std::log(c.speedup);
                    ++timed;
                    slower = slower || c.speed == SpeedVerdict::Slower;
                }
            }
            ImGui::TableNextColumn();
            if (timed > 0)
                ImGui::Text("%s× %s", score_text(std::exp(log_sum / timed)).c_str(), slower ? "slower" : "same or faster");
            else
                ImGui::TextDisabled("-");
        }
        ImGui::EndTable();
    }
    if (!note_.empty()) ImGui::TextWrapped("%s", note_.c_str());
}

}  // namespace cp::ui
