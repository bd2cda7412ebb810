// Library panel drawing: search, category tree, and the about text of the hovered or open kernel.
#include "ui/panels/library_panel.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cctype>
#include <sstream>

namespace cp::ui {
namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

}  // namespace

bool LibraryPanel::matches(const KernelFile& k, const std::string& query) {
    std::string hay = k.spec.title + " " + k.spec.category + " " + k.path.filename().string() + " " + k.spec.about;
    for (const std::string& t : k.spec.tags) hay += " " + t;
    hay = lower(hay);
    std::istringstream words(lower(query));
    for (std::string w; words >> w;)
        if (hay.find(w) == std::string::npos) return false;
    return true;
}

void LibraryPanel::draw() {
    ImGui::SetNextItemWidth(-1);
    ImGui::InputTextWithHint("##search", "search (title, tag, category)", &search_);
    const std::filesystem::path current = actions_.current ? actions_.current() : std::filesystem::path();
    const float about_height = ImGui::GetTextLineHeightWithSpacing() * 7;
    ImGui::BeginChild("##kernels", ImVec2(0, -about_height), ImGuiChildFlags_None);
    const KernelFile* shown = nullptr;
    std::string category;
    bool open = false;
    int matched = 0;
    for (const KernelFile& k : library_) {
        if (!matches(k, search_)) continue;
        ++matched;
        if (k.spec.category != category) {
            if (open) ImGui::TreePop();
            category = k.spec.category;
            ImGui::SetNextItemOpen(true, ImGuiCond_Once);
            if (!search_.empty()) ImGui::SetNextItemOpen(true);
            open = ImGui::TreeNodeEx(category.c_str(), ImGuiTreeNodeFlags_SpanAvailWidth);
        }
        if (!open) continue;
        const bool is_current = k.path == current;
        std::string label = k.spec.title.empty() ? k.path.filename().string() : k.spec.title;
        if (actions_.edit_mark) label += actions_.edit_mark(k.path);
        label += "##" + k.path.string();
        if (ImGui::Selectable(label.c_str(), is_current) && actions_.open) actions_.open(k.path);
        if (ImGui::IsItemHovered()) shown = &k;
        if (is_current && !shown) shown = &k;
    }
    if (open) ImGui::TreePop();
    if (matched == 0) ImGui::TextDisabled(library_.empty() ? "No kernels found (kernels/ folder missing?)" : "No kernel matches");
    ImGui::EndChild();

    ImGui::Separator();
    if (!shown)
        for (const KernelFile& k : library_)
            if (k.path == current) shown = &k;
    if (shown) {
        ImGui::TextUnformatted(shown->spec.title.c_str());
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::TextWrapped("%s", shown->path.filename().string().c_str());
        ImGui::PopStyleColor();
        ImGui::BeginChild("##about", ImVec2(0, 0), ImGuiChildFlags_None);
        ImGui::TextWrapped("%s", shown->spec.about.c_str());
        ImGui::EndChild();
    } else {
        ImGui::TextDisabled("Hover a kernel to read what it teaches.");
    }
}

}  // namespace cp::ui
