// Sweep panel (sweep_panel.h). The chart is drawn with ImGui's draw list: bars for the median time (gold: the
// fastest; grey: shapes not timed) and white ticks for the predicted occupancy (top = 100%).
#include "ui/panels/sweep_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

namespace cp::ui {

void SweepPanel::apply(const Dim3& block) {
    inputs_.choices.block = block;
    inputs_.choices.grid.reset();  // the file's grid expression follows the block
    inputs_.touch();
}

void SweepPanel::draw() {
    if (sweep_.running) {
        const size_t done = sweep_.progress->done, total = std::max<size_t>(sweep_.progress->total, 1);
        char label[64];
        std::snprintf(label, sizeof label, "%zu of %zu shapes", done, size_t(sweep_.progress->total));
        ImGui::ProgressBar(float(done) / float(total), ImVec2(-90, 0), label);
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) sweep_.progress->cancel = true;
    } else {
        if (ImGui::Button("Sweep block sizes")) sweep_.requested = true;
        ImGui::SameLine();
        ImGui::SetNextItemWidth(100);
        ImGui::SliderInt("repeats", &sweep_.repeats, 1, 50);
    }
    if (!sweep_.result) {
        ImGui::TextDisabled("Times the kernel for each usual block shape; the grid follows the file's expression.");
        return;
    }
    if (!sweep_.result->ok()) {
        ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", sweep_.result->error().full().c_str());
        return;
    }
    const SweepResult& r = sweep_.result->value();
    if (r.best >= 0) {
        const SweepConfig& best = r.configs[size_t(r.best)];
        ImGui::Text("fastest: block %s, %.4f ms median (%.0f%% predicted occupancy)%s", best.block.str().c_str(),
                    best.median_ms, best.predicted.occupancy * 100, r.cancelled ? " - cancelled early" : "");
        ImGui::SameLine();
        if (ImGui::Button("Apply best")) apply(best.block);
    }
    if (r.configs.empty()) return;
    double top = 0;
    for (const SweepConfig& c : r.configs)
        if (c.timed()) top = std::max(top, c.median_ms);
    if (top <= 0) top = 1;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const ImVec2 size(std::max(avail.x, 100.0f), std::max(avail.y - ImGui::GetTextLineHeightWithSpacing(), 60.0f));
    const ImVec2 o = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##sweep_chart", size);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(o, ImVec2(o.x + size.x, o.y + size.y), IM_COL32(25, 25, 30, 255));
    const float bar = size.x / float(r.configs.size());
    const bool hovered = ImGui::IsItemHovered();
    const int hover = hovered ? int((ImGui::GetIO().MousePos.x - o.x) / bar) : -1;
    for (size_t i = 0; i < r.configs.size(); ++i) {
        const SweepConfig& c = r.configs[i];
        const float h = c.timed() ? float(c.median_ms / top) * (size.y - 6) : size.y * 0.05f;
        ImU32 colour = !c.timed() ? IM_COL32(90, 90, 90, 255) : int(i) == r.best ? IM_COL32(250, 190, 40, 255)
                                                                                  : IM_COL32(80, 140, 220, 255);
        if (int(i) == hover) colour = IM_COL32(160, 210, 255, 255);
        const float x0 = o.x + float(i) * bar + 1, x1 = o.x + float(i + 1) * bar - 1;
        draw->AddRectFilled(ImVec2(x0, o.y + size.y - h), ImVec2(x1, o.y + size.y), colour);
        const float oy = o.y + size.y - float(c.predicted.occupancy) * (size.y - 4);
        draw->AddLine(ImVec2(x0, oy), ImVec2(x1, oy), IM_COL32(255, 255, 255, 255), 2);
    }
    if (hover >= 0 && hover < int(r.configs.size())) {
        const SweepConfig& c = r.configs[size_t(hover)];
        if (c.timed())
            ImGui::SetTooltip("block %s (grid %s): median %.4f ms, min %.4f\npredicted %d blocks/SM, %.0f%% occupancy (%s)\nclick to use it",
                              c.block.str().c_str(), c.grid.str().c_str(), c.median_ms, c.min_ms, c.predicted.blocks_per_sm,
                              c.predicted.occupancy * 100, c.predicted.limited_by.c_str());
        else
            ImGui::SetTooltip("block %s: %s", c.block.str().c_str(), c.skipped.c_str());
        if (ImGui::IsItemClicked() && c.timed()) apply(c.block);
    }
    ImGui::TextDisabled("bars: median time per block shape (gold: fastest); white ticks: predicted occupancy (top 100%%)");
}

}  // namespace cp::ui
