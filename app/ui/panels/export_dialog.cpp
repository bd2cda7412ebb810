// The export dialog's drawing.
#include "ui/panels/export_dialog.h"

#include <imgui.h>
#include <imgui_stdlib.h>

namespace cp::ui {

void ExportDialog::open(const std::filesystem::path& folder, std::string title) {
    folder_text_ = folder.string();
    title_ = std::move(title);
    result_.clear();
    result_ok_ = true;
    open_requested_ = true;
}

void ExportDialog::show_result(std::string text, bool ok) {
    result_ = std::move(text);
    result_ok_ = ok;
}

std::optional<std::filesystem::path> ExportDialog::draw() {
    if (open_requested_) {
        ImGui::OpenPopup("Export as a program");
        open_requested_ = false;
    }
    std::optional<std::filesystem::path> chosen;
    const float em = ImGui::GetFontSize();
    ImGui::SetNextWindowSize(ImVec2(em * 44, 0), ImGuiCond_Appearing);
    open_ = ImGui::BeginPopupModal("Export as a program", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
    if (!open_) return chosen;
    ImGui::PushTextWrapPos(em * 42);
    ImGui::TextUnformatted(("\"" + title_ + "\" as a standalone CUDA program: its kernels and CPU reference, a main() "
                            "that fills the inputs with the current values, launches, checks and prints the "
                            "verdict, and a CMakeLists.txt for nvcc.")
                               .c_str());
    ImGui::PopTextWrapPos();
    ImGui::Spacing();
    ImGui::TextUnformatted("Folder");
    ImGui::SetNextItemWidth(em * 42);
    const bool enter = ImGui::InputText("##export_folder", &folder_text_, ImGuiInputTextFlags_EnterReturnsTrue);
    if (!result_.empty()) {
        ImGui::PushTextWrapPos(em * 42);
        if (result_ok_) ImGui::TextColored(ImVec4(0.55f, 0.85f, 0.55f, 1), "%s", result_.c_str());
        else ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), "%s", result_.c_str());
        ImGui::PopTextWrapPos();
    }
    ImGui::Spacing();
    const bool pressed = ImGui::Button("Export");
    export_button_ = {ImGui::GetItemRectMin().x, ImGui::GetItemRectMin().y, ImGui::GetItemRectMax().x,
                      ImGui::GetItemRectMax().y};
    if (pressed || enter) {
        if (folder_text_.empty()) show_result("Give a folder to write the program into.", false);
        else chosen = std::filesystem::path(folder_text_);
    }
    ImGui::SameLine();
    if (ImGui::Button(result_ok_ && !result_.empty() ? "Close" : "Cancel") || ImGui::IsKeyPressed(ImGuiKey_Escape))
        ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
    return chosen;
}

}  // namespace cp::ui
