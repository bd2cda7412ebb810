// Presentation mode drawing: one undecorated window over the work area, the output on the left and the
// lesson (or the editor) in a column on the right.
#include "ui/panels/presentation_view.h"

#include "ui/widgets.h"

#include <imgui.h>
#include <imgui_internal.h>  // the child windows inside a panel, and whether they scroll

#include <algorithm>
#include <cmath>

namespace cp::ui {

namespace {

// How much taller than its area the content of any window inside `w` is (a panel's own scrolling child, such as
// the Memory panel's picture): 1 + its scroll range over its height; 0 when none scrolls.
float inner_overflow(const ImGuiWindow* w) {
    float most = 0.0f;
    for (const ImGuiWindow* c : w->DC.ChildWindows) {
        if (!c->WasActive) continue;
        if (c->ScrollMax.y > 0.5f) most = std::max(most, 1.0f + c->ScrollMax.y / std::max(1.0f, c->InnerRect.GetHeight()));
        most = std::max(most, inner_overflow(c));
    }
    return most;
}

}  // namespace

void FitScale::measure(float content_h, float area_h) {
    settled = true;
    if (area_h <= 0 || content_h <= 0) return;
    if (content_h > area_h + 1.0f && scale > kMinScale) {
        if (grew) {  // the last grow was one too many: back to the size that fitted, and stay there
            scale = before_grow;
            locked = true;
        } else {
            scale = std::max(kMinScale, scale * std::clamp(std::sqrt(area_h / content_h), 0.8f, 0.99f));
        }
        grew = false;
        settled = false;
    } else if (!locked && content_h < area_h * 0.9f && scale < 1.0f) {
        before_grow = scale;
        scale = std::min(1.0f, scale * 1.04f);
        grew = true;
        settled = false;
    } else {
        grew = false;
    }
}

void PresentationView::draw(float x, float y, float width, float height) {
    const std::string lesson = file_.path.string() + (editor_shown_ ? "#editor" : "");
    if (lesson != fitted_for_) {
        fitted_for_ = lesson;
        column_fit_ = {};
        stage_fit_ = {};
        stage_share_ = kStageHeight;
    }
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
        const float stage_h = stage_.empty() ? 0.0f : total_h * stage_share_;
        ImGui::BeginChild("##presented output", ImVec2(left_w, stage_.empty() ? 0.0f : total_h - stage_h - spacing));
        ImGui::PushFont(nullptr, ImGui::GetStyle().FontSizeBase * 1.2f);
        if (presenting_program()) actions_.program->draw();
        else output_.draw_presenting();
        ImGui::PopFont();
        ImGui::EndChild();
        // The `show:` panels must fit: the tallest one's content first takes more of the height from the output
        // (up to kStageMostHeight), then its type shrinks.
        float most_over = 0.0f;
        for (size_t i = 0; i < stage_.size(); ++i) {
            const float h = (stage_h - spacing * float(stage_.size() - 1)) / float(stage_.size());
            ImGui::PushID(int(i));
            ImGui::BeginChild("##presented panel", ImVec2(left_w, h), ImGuiChildFlags_Borders);
            ImGui::PushFont(nullptr, ImGui::GetStyle().FontSizeBase * 1.15f * stage_fit_.scale);
            ImGui::TextDisabled("%s", stage_[i]->title());
            stage_[i]->draw_presented();
            // The last item's bottom (the cursor is a line's spacing below it) and the padding under it.
            const float content = ImGui::GetCursorPosY() - ImGui::GetStyle().ItemSpacing.y + ImGui::GetStyle().WindowPadding.y;
            most_over = std::max({most_over, content / std::max(1.0f, ImGui::GetWindowHeight()),
                                  inner_overflow(ImGui::GetCurrentWindow())});
            ImGui::PopFont();
            ImGui::EndChild();
            ImGui::PopID();
        }
        stage_growing_ = false;
        stage_overflow_ = most_over;
        if (!stage_.empty()) {
            if (most_over > 1.005f && stage_share_ < kStageMostHeight) {
                stage_share_ = std::min(kStageMostHeight, stage_share_ * std::min(most_over, 1.25f));
                stage_growing_ = true;
                stage_fit_.settled = true;
            } else {
                stage_fit_.measure(most_over * 1000.0f, 1000.0f);  // as a height in pixels of a 1000-pixel area
            }
        }
        ImGui::EndGroup();
        ImGui::SameLine();
        ImGui::BeginChild("##presented column", ImVec2(0, 0), ImGuiChildFlags_Borders);
        if (editor_shown_) {
            ImGui::TextDisabled("Ctrl+E: the lesson   F11 or Esc: all panels");
            editor_.draw();
            column_fit_.settled = true;
        } else {
            draw_lesson();
            // The whole lesson column on screen, Timing and its notes included: its type shrinks until it fits.
            const float content = ImGui::GetCursorPosY() - ImGui::GetStyle().ItemSpacing.y + ImGui::GetStyle().WindowPadding.y;
            column_overflow_ = content / std::max(1.0f, ImGui::GetWindowHeight());
            column_fit_.measure(content, ImGui::GetWindowHeight());
        }
        ImGui::EndChild();
    }
    ImGui::End();
}

void PresentationView::draw_lesson() {
    const float base = ImGui::GetStyle().FontSizeBase * column_fit_.scale;
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
