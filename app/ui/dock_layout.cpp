// Default layout: DockBuilder splits. Each split keeps the central node (the output's) on the remaining side,
// so the output is the node that grows when neighbours close. A lesson's `show:` panels get a column of their own.
#include "ui/dock_layout.h"

#include <imgui_internal.h>

#include <algorithm>

namespace cp::ui {

std::vector<std::string> stage_panels(const std::vector<std::string>& show) {
    std::vector<std::string> stage;
    for (const std::string& name : show)
        if (name != "Output" && name != "Compare") stage.push_back(name);
    return stage;
}

void build_default_layout(ImGuiID id, ImVec2 pos, ImVec2 size, const std::vector<std::unique_ptr<Panel>>& panels,
                          const std::vector<std::string>& stage) {
    ImGui::DockBuilderRemoveNode(id);
    ImGui::DockBuilderAddNode(id, ImGuiDockNodeFlags_DockSpace);
    ImGui::DockBuilderSetNodePos(id, pos);
    ImGui::DockBuilderSetNodeSize(id, size);

    ImGuiID main = id, side = 0, side_bottom = 0, below_left = 0, below_right = 0;
    side = ImGui::DockBuilderSplitNode(main, ImGuiDir_Left, kSideWidth, nullptr, &main);
    side_bottom = ImGui::DockBuilderSplitNode(side, ImGuiDir_Down, kSideBottomHeight, nullptr, &side);
    below_left = ImGui::DockBuilderSplitNode(main, ImGuiDir_Down, kBelowHeight, nullptr, &main);
    below_right = ImGui::DockBuilderSplitNode(below_left, ImGuiDir_Right, 0.5f, nullptr, &below_left);
    // The lesson's stage: a column right of the output, over the full height of the output's node.
    const ImGuiID stage_node =
        stage.empty() ? 0 : ImGui::DockBuilderSplitNode(main, ImGuiDir_Right, kStageWidth, nullptr, &main);

    for (const auto& p : panels) {
        const DockPlace place = p->dock_place();
        ImGuiID node = main;
        switch (place.slot) {
            case DockSlot::Side: node = side; break;
            case DockSlot::SideBottom: node = side_bottom; break;
            case DockSlot::Main: node = main; break;
            case DockSlot::BelowLeft: node = below_left; break;
            case DockSlot::BelowRight: node = below_right; break;
        }
        bool in_front = place.in_front;
        if (auto it = std::find(stage.begin(), stage.end(), p->title()); it != stage.end()) {
            node = stage_node;
            in_front = it == stage.begin();
        }
        ImGui::DockBuilderDockWindow(p->title(), node);
        // The tab shown first: a window's tab id is "#TAB" hashed in its own id scope (ImGuiWindow's
        // constructor), so it is known before the window exists.
        if (in_front)
            if (ImGuiDockNode* n = ImGui::DockBuilderGetNode(node)) n->SelectedTabId = ImHashStr("#TAB", 0, ImHashStr(p->title()));
    }
    ImGui::DockBuilderFinish(id);
}

}  // namespace cp::ui
