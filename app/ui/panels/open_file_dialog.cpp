// Open-file dialog drawing and folder listing.
#include "ui/panels/open_file_dialog.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <vector>

namespace cp::ui {

namespace fs = std::filesystem;

void OpenFileDialog::open(const fs::path& start_folder) {
    folder_ = start_folder;
    path_text_ = start_folder.string() + "/";
    error_.clear();
    open_requested_ = true;
}

std::optional<fs::path> OpenFileDialog::draw() {
    if (open_requested_) {
        ImGui::OpenPopup("Open kernel file");
        open_requested_ = false;
    }
    std::optional<fs::path> chosen;
    ImGui::SetNextWindowSize(ImVec2(ImGui::GetFontSize() * 40, ImGui::GetFontSize() * 25), ImGuiCond_Appearing);
    if (!ImGui::BeginPopupModal("Open kernel file")) return chosen;

    auto choose = [&](const fs::path& p) {
        std::error_code ec;
        if (fs::is_directory(p, ec)) {
            folder_ = p;
            path_text_ = p.string() + "/";
        } else if (fs::is_regular_file(p, ec)) {
            chosen = p;
        } else {
            error_ = p.string() + " does not exist";
        }
    };
    ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 5);
    if (ImGui::InputText("##path", &path_text_, ImGuiInputTextFlags_EnterReturnsTrue)) choose(path_text_);
    ImGui::SameLine();
    if (ImGui::Button("Open")) choose(path_text_);
    if (!error_.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.35f, 1), "%s", error_.c_str());

    ImGui::BeginChild("##entries", ImVec2(0, -ImGui::GetFrameHeightWithSpacing()), ImGuiChildFlags_Borders);
    if (ImGui::Selectable("../")) choose(folder_.parent_path());
    std::vector<fs::directory_entry> entries;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(folder_, fs::directory_options::skip_permission_denied, ec)) {
        std::error_code dir_ec;
        const auto ext = e.path().extension();  // kernel files, programs, Python scripts and a class's results
        if (e.is_directory(dir_ec) || ext == ".cu" || ext == ".cuh" || ext == ".py" || ext == ".json") entries.push_back(e);
    }
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
        std::error_code e1, e2;
        const bool da = a.is_directory(e1), db = b.is_directory(e2);
        return da != db ? da : a.path().filename() < b.path().filename();
    });
    for (const auto& e : entries) {
        std::error_code dir_ec;
        const std::string name = e.path().filename().string() + (e.is_directory(dir_ec) ? "/" : "");
        if (ImGui::Selectable(name.c_str(), false, ImGuiSelectableFlags_AllowDoubleClick)) {
            path_text_ = e.path().string();
            if (ImGui::IsMouseDoubleClicked(0) || e.is_directory(dir_ec)) choose(e.path());
        }
    }
    ImGui::EndChild();
    if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGuiKey_Escape)) ImGui::CloseCurrentPopup();
    if (chosen) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
    return chosen;
}

}  // namespace cp::ui
