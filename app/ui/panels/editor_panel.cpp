// Editor panel drawing. Dear ImGui 1.86 has no code editor widget: this is InputTextMultiline with a
// gutter drawn beside it, kept in step with the text's scroll by looking up the widget's child window
// (the one place that needs imgui_internal.h).
#include "ui/panels/editor_panel.h"

#include <imgui.h>
#include <imgui_internal.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cstdio>
#include <map>

namespace cp::ui {
namespace {

const ImVec4 kErrorColor(1.0f, 0.35f, 0.3f, 1.0f);
const ImVec4 kWarningColor(1.0f, 0.8f, 0.2f, 1.0f);

ImVec4 severity_color(Severity s) {
    return s == Severity::Error ? kErrorColor : s == Severity::Warning ? kWarningColor : ImVec4(0.6f, 0.8f, 1.0f, 1.0f);
}

// InputTextMultiline draws into a child window named "<parent>/<label>_<id>" (BeginChildEx in 1.86).
ImGuiWindow* text_child_window(const char* label, ImGuiID id) {
    ImGuiWindow* parent = ImGui::GetCurrentWindow();
    char name[512];
    std::snprintf(name, sizeof name, "%s/%s_%08X", parent->Name, label, id);
    return ImGui::FindWindowByName(name);
}

}  // namespace

int EditorPanel::text_callback(ImGuiInputTextCallbackData* data) {
    auto* self = static_cast<EditorPanel*>(data->UserData);
    if (self->pending_jump_ > 0) {
        int line = 1, offset = 0;
        while (offset < data->BufTextLen && line < self->pending_jump_) {
            if (data->Buf[offset] == '\n') ++line;
            ++offset;
        }
        data->CursorPos = data->SelectionStart = data->SelectionEnd = offset;
        self->pending_jump_ = 0;
    }
    int line = 1, column = 1;
    for (int i = 0; i < data->CursorPos && i < data->BufTextLen; ++i) {
        if (data->Buf[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    self->cursor_line_ = line;
    self->cursor_column_ = column;
    return 0;
}

void EditorPanel::draw() {
    if (!doc_) {
        ImGui::TextDisabled("No kernel open. Pick one in the Library, or File > Open (Ctrl+O).");
        return;
    }
    draw_toolbar();
    draw_source();
    draw_diagnostics();
}

void EditorPanel::draw_toolbar() {
    KernelDocument& doc = *doc_;
    if (ImGui::Button("Run (F5)") && actions_.run) actions_.run();
    ImGui::SameLine();
    if (ImGui::Button("Save (Ctrl+S)") && actions_.save) actions_.save();
    ImGui::SameLine();
    const bool edited = doc.has_user_copy() || doc.unsaved();
    ImGui::BeginDisabled(!edited);
    if (ImGui::Button("Revert to stock")) confirm_revert_ = true;
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::Checkbox("Compile while typing", &auto_compile_);
    if (doc.text().find("/*@playground") == std::string::npos && actions_.describe) {
        // A pasted kernel without a header cannot run yet: one click writes a header from its signature.
        if (ImGui::Button("Describe: add a header from the signature")) actions_.describe();
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("Buffers for pointers (const: inputs with random values), params for scalars, a launch "
                              "that covers n (or width x height). Same as `cuda-playground describe FILE`.");
    }

    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    const std::string where = doc.has_user_copy() ? "edited copy: " + doc.user_copy_path().string()
                                                  : "stock: " + doc.original_path().string();
    ImGui::TextUnformatted(where.c_str());
    ImGui::PopStyleColor();
    ImGui::Text("Ln %d, Col %d", cursor_line_, cursor_column_);
    if (status_.pending) {
        ImGui::SameLine();
        ImGui::TextDisabled("| changed, not compiled yet");
    } else if (!status_.summary.empty()) {
        ImGui::SameLine();
        const bool errors = has_errors(status_.diagnostics);
        ImGui::TextColored(errors ? kErrorColor : ImGui::GetStyleColorVec4(ImGuiCol_Text), "| %s", status_.summary.c_str());
    }

    if (confirm_revert_) {
        ImGui::OpenPopup("Revert to stock?");
        confirm_revert_ = false;
    }
    if (ImGui::BeginPopupModal("Revert to stock?", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
        ImGui::TextUnformatted("Discard your edits and go back to the bundled version of this kernel?");
        if (ImGui::Button("Revert") && actions_.revert) {
            actions_.revert();
            ImGui::CloseCurrentPopup();
        }
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
        ImGui::EndPopup();
    }
}

void EditorPanel::draw_source() {
    KernelDocument& doc = *doc_;
    // Text changed outside the widget (revert, reload from disk, another kernel): take it, and drop the
    // widget's own copy if it is being edited.
    if (doc.revision() != buffer_revision_ || doc.original_path().string() != buffer_path_) {
        if (buffer_ != doc.text()) {
            buffer_ = doc.text();
            if (active_) ImGui::ClearActiveID();
        }
        buffer_revision_ = doc.revision();
        buffer_path_ = doc.original_path().string();
    }

    const float diag_height =
        status_.diagnostics.empty() ? 0.0f
                                    : ImGui::GetTextLineHeightWithSpacing() * float(std::min<size_t>(status_.diagnostics.size(), 5) + 1);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float height = std::max(avail.y - diag_height, ImGui::GetTextLineHeight() * 4);
    const int lines = int(std::count(buffer_.begin(), buffer_.end(), '\n')) + 1;
    int digits = 1;
    for (int n = lines; n >= 10; n /= 10) ++digits;
    const float char_w = ImGui::CalcTextSize("0").x;
    const float gutter = char_w * float(std::max(digits, 3) + 2);
    const ImVec2 origin = ImGui::GetCursorScreenPos();

    ImGui::SetCursorScreenPos(ImVec2(origin.x + gutter, origin.y));
    const char* label = "##source";
    const ImGuiID id = ImGui::GetID(label);
    if (pending_jump_ > 0) ImGui::SetKeyboardFocusHere();
    const ImGuiInputTextFlags flags = ImGuiInputTextFlags_AllowTabInput | ImGuiInputTextFlags_CallbackAlways;
    // Source reads best on a plain dark background, not the tinted frame colour of small inputs.
    ImVec4 bg = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
    bg = ImVec4(bg.x * 0.6f, bg.y * 0.6f, bg.z * 0.6f, 1.0f);
    ImGui::PushStyleColor(ImGuiCol_FrameBg, bg);
    if (ImGui::InputTextMultiline(label, &buffer_, ImVec2(avail.x - gutter, height), flags, text_callback, this)) {
        doc.set_text(buffer_, actions_.now ? actions_.now() : 0.0);
        buffer_revision_ = doc.revision();
    }
    ImGui::PopStyleColor();
    active_ = ImGui::IsItemActive();

    // Gutter: line numbers in step with the text's scroll, diagnostics marked on their lines.
    ImGuiWindow* text_window = text_child_window(label, id);
    const float scroll_y = text_window ? text_window->Scroll.y : 0.0f;
    const float font = ImGui::GetFontSize();
    const float top = origin.y + ImGui::GetStyle().FramePadding.y - scroll_y;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->PushClipRect(origin, ImVec2(origin.x + gutter, origin.y + height), true);
    std::map<int, const Diagnostic*> worst;  // line -> the most severe diagnostic on it
    for (const Diagnostic& d : status_.diagnostics) {
        if (d.line <= 0) continue;
        auto [it, inserted] = worst.emplace(d.line, &d);
        if (!inserted && int(d.severity) < int(it->second->severity)) it->second = &d;
    }
    const int first = std::max(1, int(scroll_y / font));
    const int last = std::min(lines, first + int(height / font) + 2);
    const ImU32 number_color = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    for (int line = first; line <= last; ++line) {
        const float y = top + float(line - 1) * font;
        std::string num = std::to_string(line);
        num.insert(0, size_t(std::max(std::max(digits, 3) - int(num.size()), 0)), ' ');
        auto mark = worst.find(line);
        const ImU32 color = mark != worst.end() ? ImGui::GetColorU32(severity_color(mark->second->severity)) : number_color;
        if (mark != worst.end()) draw->AddRectFilled(ImVec2(origin.x, y), ImVec2(origin.x + char_w * 0.6f, y + font), color);
        draw->AddText(ImVec2(origin.x + char_w, y), color, num.c_str());
    }
    draw->PopClipRect();
    // Bands across the marked lines, drawn in the text's own window so they scroll and clip with it.
    if (text_window) {
        ImDrawList* text_draw = text_window->DrawList;
        const ImVec2 tl = text_window->Pos;
        for (const auto& [line, d] : worst) {
            const float y = top + float(line - 1) * font;
            if (y + font < tl.y || y > tl.y + height) continue;
            ImVec4 c = severity_color(d->severity);
            c.w = 0.18f;
            text_draw->AddRectFilled(ImVec2(tl.x, y), ImVec2(tl.x + text_window->Size.x, y + font), ImGui::GetColorU32(c));
            c.w = 0.9f;
            text_draw->AddLine(ImVec2(tl.x, y + font - 1), ImVec2(tl.x + text_window->Size.x, y + font - 1), ImGui::GetColorU32(c));
        }
    }
    // Hovering a marked line number shows its messages.
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    if (ImGui::IsWindowHovered() && mouse.x >= origin.x && mouse.x < origin.x + gutter && mouse.y >= origin.y &&
        mouse.y < origin.y + height) {
        const int line = int((mouse.y - top) / font) + 1;
        std::string tip;
        for (const Diagnostic& d : status_.diagnostics)
            if (d.line == line) tip += std::string(severity_name(d.severity)) + ": " + d.message + "\n";
        if (!tip.empty()) ImGui::SetTooltip("%s", tip.c_str());
    }
    ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + height + ImGui::GetStyle().ItemSpacing.y));
}

void EditorPanel::draw_diagnostics() {
    if (status_.diagnostics.empty()) return;
    ImGui::BeginChild("##diagnostics", ImVec2(0, 0), true);
    for (size_t i = 0; i < status_.diagnostics.size(); ++i) {
        const Diagnostic& d = status_.diagnostics[i];
        ImGui::PushID(int(i));
        ImGui::PushStyleColor(ImGuiCol_Text, severity_color(d.severity));
        char where[48];
        if (d.line > 0) std::snprintf(where, sizeof where, "line %d:%d", d.line, std::max(d.column, 1));
        else std::snprintf(where, sizeof where, "(no line)");
        const std::string label = std::string(where) + "  " + severity_name(d.severity) + ": " + d.message;
        if (ImGui::Selectable(label.c_str()) && d.line > 0) jump_to_line(d.line);
        ImGui::PopStyleColor();
        ImGui::PopID();
    }
    ImGui::EndChild();
}

}  // namespace cp::ui
