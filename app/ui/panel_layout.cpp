#include "ui/panel_layout.h"

#include "ui/dock_layout.h"

#include <imgui.h>
#include <imgui_internal.h>  // the dock builder and the viewport's work area of this frame

#include <algorithm>
#include <iterator>

namespace cp::ui {

bool PanelLayout::has(const std::string& title) const {
    return std::any_of(panels_.begin(), panels_.end(), [&](const auto& p) { return title == p->title(); });
}

std::vector<std::string> PanelLayout::titles() const {
    std::vector<std::string> titles;
    for (const auto& p : panels_) titles.push_back(p->title());
    return titles;
}

void PanelLayout::show(const std::string& title) {
    for (auto& p : panels_)
        if (title == p->title()) {
            p->visible = true;
            if (std::find(bring_to_front_.begin(), bring_to_front_.end(), title) == bring_to_front_.end())
                bring_to_front_.push_back(title);
            layout_frames_ = 2;
        }
}

void PanelLayout::hide(const std::string& title) {
    for (auto& p : panels_)
        if (title == p->title()) p->visible = false;
    layout_frames_ = 2;
}

bool PanelLayout::set_visible(const std::string& title, bool v) {
    if (!has(title)) return false;
    if (v) show(title);
    else hide(title);
    return true;
}

void PanelLayout::set_all_visible(bool v) {
    for (auto& p : panels_) p->visible = v;
}

void PanelLayout::reset() {
    set_all_visible(true);
    rebuild_ = true;
    layout_frames_ = 2;
}

void PanelLayout::show_when_settled(const std::string& title) {
    startup_show_.push_back(title);
    layout_frames_ = std::max(layout_frames_, startup_show_frames_ + 2);
}

void PanelLayout::set_stage(std::vector<std::string> show) {
    if (memory_stage_ && std::find(show.begin(), show.end(), "Memory") == show.end()) show.insert(show.begin(), "Memory");
    std::vector<std::string> stage = stage_panels(show);
    std::vector<Panel*> presented;
    for (const std::string& title : stage)
        for (auto& p : panels_)
            if (title == p->title()) presented.push_back(p.get());
    presentation_->set_stage(std::move(presented));
    if (stage == stage_) return;
    stage_ = std::move(stage);
    for (const std::string& title : stage_)
        for (auto& p : panels_)
            if (title == p->title()) p->visible = true;
    rebuild_ = true;
    layout_frames_ = std::max(layout_frames_, 2 + int(stage_.size()));
}

bool PanelLayout::set_presenting(bool on) {
    if (on == presenting_) return false;
    presenting_ = on;
    layout_frames_ = 2;
    return true;
}

void PanelLayout::restore_visibility(const std::map<std::string, bool>& shown) {
    for (auto& p : panels_)
        if (auto it = shown.find(p->title()); it != shown.end()) p->visible = it->second;
}

void PanelLayout::save_visibility(std::map<std::string, bool>& shown) const {
    for (const auto& p : panels_) shown[p->title()] = p->visible;
}

void PanelLayout::begin_frame() {
    if (layout_frames_ > 0) --layout_frames_;
    if (!startup_show_.empty() && --startup_show_frames_ <= 0) {
        for (const std::string& title : startup_show_) show(title);
        startup_show_.clear();
    }
}

// The panels in a dockspace filling what the menu, banner and status bars leave of the window. Its layout
// is the user's (saved in imgui.ini), or the default one on the first start and after View > Reset layout.
bool PanelLayout::draw_docked() {
    ImGuiViewportP* vp = static_cast<ImGuiViewportP*>(ImGui::GetMainViewport());
    // This frame's work area (the viewport's WorkPos/WorkSize catch up with the bars only next frame).
    const ImRect work = vp->GetBuildWorkRect();
    ImGui::SetNextWindowPos(work.Min);
    ImGui::SetNextWindowSize(work.GetSize());
    ImGui::SetNextWindowViewport(vp->ID);
    const ImGuiWindowFlags host_flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoDocking |
                                        ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoNavFocus |
                                        ImGuiWindowFlags_NoBackground | ImGuiWindowFlags_NoSavedSettings;
    ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0.0f);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0.0f);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
    ImGui::Begin("##dock host", nullptr, host_flags);
    ImGui::PopStyleVar(3);
    const ImGuiID dockspace = ImGui::GetID("panels");
    if (rebuild_ || !ImGui::DockBuilderGetNode(dockspace)) {
        build_default_layout(dockspace, work.Min, work.GetSize(), panels_, stage_);
        // Windows take the focus when they first appear, and a focused docked window is its group's front tab:
        // the output gets the focus once they all have, so no other group changes its front tab.
        // (A new list rather than an insert at begin(): GCC 12 -O2 warns of a null dereference in that insert.)
        std::vector<std::string> order{"Output"};
        // The lesson's first `show:` panel last: the window focused last is its group's front tab.
        if (!stage_.empty()) order.push_back(stage_.front());
        order.insert(order.end(), std::make_move_iterator(bring_to_front_.begin()),
                     std::make_move_iterator(bring_to_front_.end()));
        bring_to_front_ = std::move(order);
        rebuild_ = false;
    }
    ImGui::DockSpace(dockspace, ImVec2(0, 0));
    ImGui::End();

    bool closed = false;
    for (auto& p : panels_) {
        if (!p->visible) continue;
        bool open = true;
        if (ImGui::Begin(p->title(), &open, p->focus_on_appearing() ? 0 : ImGuiWindowFlags_NoFocusOnAppearing)) p->draw();
        ImGui::End();
        if (!open) {
            p->visible = false;
            closed = true;
        }
    }
    // One a frame: a dock node selects the tab of the window focused last, so two requests in one frame
    // would leave only the second group changed.
    if (!bring_to_front_.empty()) {
        ImGui::SetWindowFocus(bring_to_front_.front().c_str());
        bring_to_front_.erase(bring_to_front_.begin());
        layout_frames_ = std::max(layout_frames_, int(bring_to_front_.size()) + 2);
    }
    return closed;
}

}  // namespace cp::ui
