// Occupancy panel (occupancy_panel.h): figures from core/engine/occupancy.h, the same computation the GPU
// test checks against cuOccupancyMaxActiveBlocksPerMultiprocessor.
#include "ui/panels/occupancy_panel.h"

#include "core/engine/occupancy.h"
#include "ui/widgets.h"

#include <imgui.h>
#include <implot.h>

#include <algorithm>
#include <cmath>

namespace cp::ui {

void OccupancyPanel::draw() {
    if (!latest_ || !latest_->report.resolved || !latest_->report.compiled) {
        text_disabled_wrapped("Compile and run the kernel to see its occupancy.");
        return;
    }
    const RunReport& r = latest_->report;
    const ResolvedRun& run = *r.resolved;
    const int threads = int(run.block.count());
    const OccupancyFigures f = occupancy_for_block(device_, r.usage, run.dynamic_shared_bytes, threads);
    if (r.usage.registers >= 0)
        ImGui::TextWrapped("registers / thread: %d", r.usage.registers);
    else
        text_disabled_wrapped("registers / thread: unknown on this backend (counted as 0)");
    ImGui::TextWrapped("shared memory / block: %d B (%d static + %u dynamic)", f.shared_per_block,
                       std::max(r.usage.static_shared_bytes, 0), run.dynamic_shared_bytes);
    ImGui::TextWrapped("block %s: %d threads, %d warps", run.block.str().c_str(), threads, f.warps_per_block);
    ImGui::TextWrapped("active per SM: %d blocks, %d of %d warps", f.blocks_per_sm, f.warps_per_sm, f.max_warps_per_sm);
    ImGui::TextWrapped("theoretical occupancy: %.0f%%", f.occupancy * 100);
    ImGui::TextWrapped("limited by: %s", f.limited_by.c_str());

    // The chart (ImPlot, like every plot in the window): one bar per multiple of the warp size.
    const std::vector<OccupancyFigures> curve = occupancy_curve(device_, r.usage, run.dynamic_shared_bytes);
    if (curve.empty()) return;
    std::vector<double> xs, ys, current_x, current_y;
    for (const OccupancyFigures& c : curve) {
        xs.push_back(c.threads);
        ys.push_back(c.occupancy * 100);
        if (c.threads == threads) {
            current_x.push_back(c.threads);
            current_y.push_back(c.occupancy * 100);
        }
    }
    const double step = curve.size() > 1 ? double(curve[1].threads - curve[0].threads) : 32.0;
    const float height =
        std::max(ImGui::GetContentRegionAvail().y - ImGui::GetTextLineHeightWithSpacing(), ImGui::GetFontSize() * 8);
    if (!ImPlot::BeginPlot("##occupancy_chart", ImVec2(-1, height))) return;
    ImPlot::SetupAxes("threads per block", "occupancy (%)");
    ImPlot::SetupAxisLimits(ImAxis_X1, xs.front() - step, xs.back() + step, ImPlotCond_Always);
    ImPlot::SetupAxisLimits(ImAxis_Y1, 0, 105, ImPlotCond_Always);
    ImPlot::SetupLegend(ImPlotLocation_South, ImPlotLegendFlags_Horizontal);
    ImPlot::PlotBars("block sizes", xs.data(), ys.data(), int(xs.size()), step * 0.8);
    if (!current_x.empty())
        ImPlot::PlotBars("current block", current_x.data(), current_y.data(), 1, step * 0.8,
                         ImPlotSpec(ImPlotProp_FillColor, IM_COL32(255, 200, 40, 255)));
    if (ImPlot::IsPlotHovered()) {
        const double mx = ImPlot::GetPlotMousePos().x;
        size_t i = 0;
        for (size_t k = 1; k < curve.size(); ++k)
            if (std::abs(xs[k] - mx) < std::abs(xs[i] - mx)) i = k;
        const OccupancyFigures& c = curve[i];
        ImGui::SetTooltip("%d threads: %d blocks/SM, %.0f%% occupancy, limited by %s\nclick to use it", c.threads,
                          c.blocks_per_sm, c.occupancy * 100, c.limited_by.c_str());
        if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
            const int dims = run.block.z > 1 ? 3 : run.block.y > 1 ? 2 : 1;
            inputs_.choices.block = shape_block(c.threads, dims, device_.warp_size);
            inputs_.choices.grid.reset();
            inputs_.touch();
        }
    }
    ImPlot::EndPlot();
    text_disabled_wrapped(
        "occupancy against threads per block, %d..%d; yellow: the current block; click a bar to use it",
        curve.front().threads, curve.back().threads);
}

}  // namespace cp::ui
