// Presentation mode drawing: one undecorated window over the work area, the output on the left and the
// lesson (or the editor) in a column on the right.
#include "ui/panels/presentation_view.h"

#include "ui/widgets.h"

#include <imgui.h>

namespace cp::ui {

void PresentationView::draw(float x, float y, float width, float height) {
    ImGui::SetNextWindowPos(ImVec2(x, y));
    ImGui::SetNextWindowSize(ImVec2(width, height));
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoDocking |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;
    if (ImGui::Begin("Presentation", nullptr, flags)) {
        const float column = width * (editor_shown_ ? kEditorWidth : kLessonWidth);
        const float spacing = ImGui::GetStyle().ItemSpacing.x;
        const float left_w = ImGui::GetContentRegionAvail().x - column - spacing;
        ImGui::BeginGroup();
        // With `show:` panels the output keeps the larger top part and they share the rest, one below another.
        const float total_h = ImGui::GetContentRegionAvail().y;
        const float stage_h = stage_.empty() ? 0.0f : total_h * kStageHeight;
        ImGui::BeginChild("##presented output", ImVec2(left_w, stage_.empty() ? 0.0f : total_h - stage_h - spacing));
        ImGui::PushFont(nullptr, ImGui::GetStyle().FontSizeBase * 1.2f);
        if (presenting_program()) actions_.program->draw();
        else output_.draw_presenting();
        ImGui::PopFont();
        ImGui::EndChild();
        for (size_t i = 0; i < stage_.size(); ++i) {
            const float h = (stage_h - spacing * float(stage_.size() - 1)) / float(stage_.size());
            ImGui::PushID(int(i));
            ImGui::BeginChild("##presented panel", ImVec2(left_w, h), ImGuiChildFlags_Borders);
            ImGui::PushFont(nullptr, ImGui::GetStyle().FontSizeBase * 1.15f);
            ImGui::TextDisabled("%s", stage_[i]->title());
            stage_[i]->draw_presented();
            ImGui::PopFont();
            ImGui::EndChild();
            ImGui::PopID();
        }
        ImGui::EndGroup();
        ImGui::SameLine();
        ImGui::BeginChild("##presented column", ImVec2(0, 0), ImGuiChildFlags_Borders);
        if (editor_shown_) {
            ImGui::TextDisabled("Ctrl+E: the lesson   F11 or Esc: all panels");
            editor_.draw();
        } else {
            draw_lesson();
        }
        ImGui::EndChild();
    }
    ImGui::End();
}

void PresentationView::draw_lesson() {
    const float base = ImGui::GetStyle().FontSizeBase;
    ImGui::PushFont(nullptr, base * kLargeType * 1.3f);
    ImGui::TextWrapped("%s", file_.spec.title.empty() ? file_.path.filename().string().c_str() : file_.spec.title.c_str());
    ImGui::PopFont();
    ImGui::TextDisabled("Ctrl+E: the code   F11 or Esc: all panels");
    ImGui::PushFont(nullptr, base * kLargeType);
    if (!file_.spec.about.empty()) ImGui::TextWrapped("%s", file_.spec.about.c_str());
    ImGui::Separator();

    if (ImGui::Button("Run (F5)") && actions_.run) actions_.run();
    if (!presenting_program()) {
        launch_.draw_controls(true);
        launch_.draw_refusals();
        ImGui::Separator();
        timing_.draw_summary();
    }
    ImGui::Separator();
    if (ImGui::Button("Leave presentation (F11)") && actions_.leave) actions_.leave();
    ImGui::PopFont();
}

}  // namespace cp::ui
