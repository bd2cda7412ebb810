// Occupancy panel (occupancy_panel.h): figures from core/engine/occupancy.h, the same computation the GPU
// test checks against cuOccupancyMaxActiveBlocksPerMultiprocessor.
#include "ui/panels/occupancy_panel.h"

#include "core/engine/occupancy.h"

#include <imgui.h>

#include <algorithm>

namespace cp::ui {

void OccupancyPanel::draw() {
    if (!latest_ || !latest_->report.resolved || !latest_->report.compiled) {
        ImGui::TextDisabled("Compile and run the kernel to see its occupancy.");
        return;
    }
    const RunReport& r = latest_->report;
    const ResolvedRun& run = *r.resolved;
    const int threads = int(run.block.count());
    const OccupancyFigures f = occupancy_for_block(device_, r.usage, run.dynamic_shared_bytes, threads);
    if (r.usage.registers >= 0) ImGui::Text("registers / thread: %d", r.usage.registers);
    else ImGui::TextDisabled("registers / thread: unknown on this backend (counted as 0)");
    ImGui::Text("shared memory / block: %d B (%d static + %u dynamic)", f.shared_per_block, std::max(r.usage.static_shared_bytes, 0),
                run.dynamic_shared_bytes);
    ImGui::Text("block %s: %d threads, %d warps", run.block.str().c_str(), threads, f.warps_per_block);
    ImGui::Text("active per SM: %d blocks, %d of %d warps", f.blocks_per_sm, f.warps_per_sm, f.max_warps_per_sm);
    ImGui::Text("theoretical occupancy: %.0f%%", f.occupancy * 100);
    ImGui::Text("limited by: %s", f.limited_by.c_str());

    // The chart: one bar per multiple of the warp size.
    const std::vector<OccupancyFigures> curve = occupancy_curve(device_, r.usage, run.dynamic_shared_bytes);
    if (curve.empty()) return;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const ImVec2 size(std::max(avail.x, 100.0f), std::max(avail.y - ImGui::GetTextLineHeightWithSpacing(), 60.0f));
    const ImVec2 o = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##occupancy_chart", size);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(o, ImVec2(o.x + size.x, o.y + size.y), IM_COL32(25, 25, 30, 255));
    const float bar = size.x / float(curve.size());
    const bool hovered = ImGui::IsItemHovered();
    const int hover_index = hovered ? int((ImGui::GetIO().MousePos.x - o.x) / bar) : -1;
    for (size_t i = 0; i < curve.size(); ++i) {
        const float h = float(curve[i].occupancy) * (size.y - 4);
        const bool current = curve[i].threads == threads;
        const ImU32 colour = current ? IM_COL32(255, 200, 40, 255)
                             : int(i) == hover_index ? IM_COL32(150, 200, 255, 255)
                                                     : IM_COL32(80, 140, 220, 255);
        draw->AddRectFilled(ImVec2(o.x + float(i) * bar + 1, o.y + size.y - h), ImVec2(o.x + float(i + 1) * bar - 1, o.y + size.y), colour);
    }
    for (float level : {0.25f, 0.5f, 0.75f, 1.0f}) {
        const float y = o.y + size.y - level * (size.y - 4);
        draw->AddLine(ImVec2(o.x, y), ImVec2(o.x + size.x, y), IM_COL32(255, 255, 255, 40));
    }
    if (hover_index >= 0 && hover_index < int(curve.size())) {
        const OccupancyFigures& c = curve[size_t(hover_index)];
        ImGui::SetTooltip("%d threads: %d blocks/SM, %.0f%% occupancy, limited by %s\nclick to use it", c.threads,
                          c.blocks_per_sm, c.occupancy * 100, c.limited_by.c_str());
        if (ImGui::IsItemClicked()) {
            const int dims = run.block.z > 1 ? 3 : run.block.y > 1 ? 2 : 1;
            inputs_.choices.block = shape_block(c.threads, dims, device_.warp_size);
            inputs_.choices.grid.reset();
            inputs_.touch();
        }
    }
    ImGui::TextDisabled("occupancy (0-100%%) against threads per block, %d..%d; yellow: the current block", curve.front().threads,
                        curve.back().threads);
}

}  // namespace cp::ui
