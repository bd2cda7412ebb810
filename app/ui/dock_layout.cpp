// Default layout: DockBuilder splits. Each split keeps the central node (the output's) on the remaining side,
// so the output is the node that grows when neighbours close.
#include "ui/dock_layout.h"

#include <imgui_internal.h>

namespace cp::ui {

void build_default_layout(ImGuiID id, ImVec2 pos, ImVec2 size,
                                              const std::vector<std::unique_ptr<Panel>>& panels) {
    ImGui::DockBuilderRemoveNode(id);
    ImGui::DockBuilderAddNode(id, ImGuiDockNodeFlags_DockSpace);
    ImGui::DockBuilderSetNodePos(id, pos);
    ImGui::DockBuilderSetNodeSize(id, size);

    ImGuiID main = id, side = 0, side_bottom = 0, below_left = 0, below_right = 0;
    side = ImGui::DockBuilderSplitNode(main, ImGuiDir_Left, kSideWidth, nullptr, &main);
    side_bottom = ImGui::DockBuilderSplitNode(side, ImGuiDir_Down, kSideBottomHeight, nullptr, &side);
    below_left = ImGui::DockBuilderSplitNode(main, ImGuiDir_Down, kBelowHeight, nullptr, &main);
    below_right = ImGui::DockBuilderSplitNode(below_left, ImGuiDir_Right, 0.5f, nullptr, &below_left);

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
        ImGui::DockBuilderDockWindow(p->title(), node);
        // The tab shown first: a window's tab id is "#TAB" hashed in its own id scope (ImGuiWindow's
        // constructor), so it is known before the window exists.
        if (place.in_front)
            if (ImGuiDockNode* n = ImGui::DockBuilderGetNode(node)) n->SelectedTabId = ImHashStr("#TAB", 0, ImHashStr(p->title()));
    }
    ImGui::DockBuilderFinish(id);
}

}  // namespace cp::ui
