// Sweep panel (sweep_panel.h). The chart is an ImPlot plot: bars for the median time (gold: the fastest) and a
// line for the predicted occupancy on its own axis.
#include "ui/panels/sweep_panel.h"

#include "ui/widgets.h"

#include <imgui.h>
#include <implot.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

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
        ImGui::ProgressBar(float(done) / float(total),
                           ImVec2(-ImGui::CalcTextSize("Cancel").x - ImGui::GetStyle().FramePadding.x * 2 -
                                      ImGui::GetStyle().ItemSpacing.x,
                                  0),
                           label);
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) sweep_.progress->cancel = true;
    } else {
        if (ImGui::Button("Sweep block sizes")) sweep_.requested = true;
        same_line_if_fits(ImGui::GetFontSize() * 7 + ImGui::CalcTextSize("repeats").x +
                          ImGui::GetStyle().ItemInnerSpacing.x);
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
        ImGui::SliderInt("repeats", &sweep_.repeats, 1, 50);
    }
    if (!sweep_.result) {
        text_disabled_wrapped("Times the kernel for each usual block shape; the grid follows the file's expression.");
        return;
    }
    if (!sweep_.result->ok()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.4f, 0.4f, 1));
        ImGui::TextWrapped("%s", sweep_.result->error().full().c_str());
        ImGui::PopStyleColor();
        return;
    }
    const SweepResult& r = sweep_.result->value();
    if (r.best >= 0) {
        const SweepConfig& best = r.configs[size_t(r.best)];
        ImGui::TextWrapped("fastest: block %s, %.4f ms median (%.0f%% predicted occupancy)%s", best.block.str().c_str(),
                           best.median_ms, best.predicted.occupancy * 100, r.cancelled ? " - cancelled early" : "");
        if (ImGui::Button("Apply best")) apply(best.block);
    }
    if (r.configs.empty()) return;
    // The chart (ImPlot): median time per shape as bars on the left axis, predicted occupancy as a line on the
    // right axis, the fastest shape in gold; shapes not timed have no bar (hover says why).
    std::vector<double> xs, times, occupancy, best_x, best_y;
    std::vector<std::string> names;
    for (size_t i = 0; i < r.configs.size(); ++i) {
        const SweepConfig& c = r.configs[i];
        xs.push_back(double(i));
        times.push_back(c.timed() ? c.median_ms : 0.0);
        occupancy.push_back(c.predicted.occupancy * 100);
        names.push_back(c.block.str());
        if (int(i) == r.best) {
            best_x.push_back(double(i));
            best_y.push_back(c.median_ms);
        }
    }
    // Tick labels: every shape when they fit, otherwise every k-th.
    const size_t n = r.configs.size();
    const float label_width = ImGui::CalcTextSize("1024x1x1 ").x;
    const size_t every = std::max<size_t>(
        1, size_t(std::ceil(float(n) * label_width / std::max(ImGui::GetContentRegionAvail().x, 1.0f))));
    std::vector<double> tick_at;
    std::vector<const char*> tick_text;
    for (size_t i = 0; i < n; i += every) {
        tick_at.push_back(double(i));
        tick_text.push_back(names[i].c_str());
    }
    const float height =
        std::max(ImGui::GetContentRegionAvail().y - ImGui::GetTextLineHeightWithSpacing(), ImGui::GetFontSize() * 8);
    if (!ImPlot::BeginPlot("##sweep_chart", ImVec2(-1, height))) return;
    ImPlot::SetupAxis(ImAxis_X1, "block shape");
    ImPlot::SetupAxis(ImAxis_Y1, "median time (ms)");
    ImPlot::SetupAxis(ImAxis_Y2, "predicted occupancy (%)", ImPlotAxisFlags_AuxDefault);
    ImPlot::SetupAxisLimits(ImAxis_X1, -0.75, double(n) - 0.25, ImPlotCond_Always);
    double top = 0;
    for (const SweepConfig& c : r.configs)
        if (c.timed()) top = std::max(top, c.median_ms);
    ImPlot::SetupAxisLimits(ImAxis_Y1, 0, top > 0 ? top * 1.15 : 1, ImPlotCond_Always);
    ImPlot::SetupAxisLimits(ImAxis_Y2, 0, 115, ImPlotCond_Always);
    ImPlot::SetupAxisTicks(ImAxis_X1, tick_at.data(), int(tick_at.size()), tick_text.data());
    ImPlot::SetupLegend(ImPlotLocation_NorthEast);
    ImPlot::SetAxes(ImAxis_X1, ImAxis_Y1);
    ImPlot::PlotBars("median time", xs.data(), times.data(), int(n), 0.8);
    if (!best_x.empty())
        ImPlot::PlotBars("fastest", best_x.data(), best_y.data(), 1, 0.8,
                         ImPlotSpec(ImPlotProp_FillColor, IM_COL32(250, 190, 40, 255)));
    ImPlot::SetAxes(ImAxis_X1, ImAxis_Y2);
    ImPlot::PlotLine("predicted occupancy", xs.data(), occupancy.data(), int(n),
                     ImPlotSpec(ImPlotProp_Marker, ImPlotMarker_Circle, ImPlotProp_MarkerSize,
                                ImGui::GetFontSize() * 0.2f, ImPlotProp_LineColor, IM_COL32(255, 255, 255, 255)));
    if (ImPlot::IsPlotHovered()) {
        const long i = std::lround(ImPlot::GetPlotMousePos(ImAxis_X1, ImAxis_Y1).x);
        if (i >= 0 && i < long(n)) {
            const SweepConfig& c = r.configs[size_t(i)];
            if (c.timed())
                ImGui::SetTooltip(
                    "block %s (grid %s): median %.4f ms, min %.4f\npredicted %d blocks/SM, %.0f%% occupancy "
                    "(%s)\nclick to use it",
                    c.block.str().c_str(), c.grid.str().c_str(), c.median_ms, c.min_ms, c.predicted.blocks_per_sm,
                    c.predicted.occupancy * 100, c.predicted.limited_by.c_str());
            else
                ImGui::SetTooltip("block %s: %s", c.block.str().c_str(), c.skipped.c_str());
            if (ImGui::IsMouseClicked(ImGuiMouseButton_Left) && c.timed()) apply(c.block);
        }
    }
    ImPlot::EndPlot();
    text_disabled_wrapped(
        "bars: median time per block shape (gold: fastest); line: predicted occupancy; click a bar to use it");
}

}  // namespace cp::ui
