// Timing panel drawing.
#include "ui/panels/timing_panel.h"

#include "ui/widgets.h"

#include <imgui.h>
#include <implot.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace cp::ui {

void TimingPanel::draw() {
    int repeats = inputs_.timing.repeats;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    if (ImGui::InputInt("repeats", &repeats)) {
        inputs_.timing.repeats = std::clamp(repeats, 1, 1000);
        inputs_.touch();
    }
    same_line_if_fits(checkbox_width("flush L2"));
    if (ImGui::Checkbox("flush L2", &inputs_.timing.flush_l2)) inputs_.touch();
    same_line_if_fits(checkbox_width("re-run every frame"));
    ImGui::Checkbox("re-run every frame", &live_.every_frame);
    if (ImGui::Checkbox("verify every run (F5 always does)", &inputs_.verify)) inputs_.touch();

    ImGui::Separator();
    if (!draw_summary()) return;
    draw_history();
}

bool TimingPanel::draw_summary() {
    const TimingSample* last = history_.last();
    if (!last) {
        ImGui::TextDisabled("No timings yet.");
        return false;
    }
    const TimingStats& t = last->stats;
    const double last_ms = t.samples_ms.empty() ? 0 : t.samples_ms.back();
    ImGui::TextWrapped("last %.4f ms   median %.4f ms   min %.4f ms", last_ms, t.median_ms, t.min_ms);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%zu repeats, %s | grid %s block %s", t.samples_ms.size(), t.cpu_time ? "CPU clock" : "GPU events",
                       last->grid.str().c_str(), last->block.str().c_str());
    ImGui::PopStyleColor();
    if (last->bandwidth_gbps > 0) {
        if (last->bandwidth_fraction > 0)
            ImGui::TextWrapped("bandwidth %.1f GB/s = %.0f%% of copy bandwidth (%.0f GB/s)", last->bandwidth_gbps,
                        last->bandwidth_fraction * 100, device_.copy_bandwidth_gbps);
        else
            ImGui::TextWrapped("bandwidth %.1f GB/s", last->bandwidth_gbps);
    }
    return true;
}

void TimingPanel::draw_history() {
    const auto& samples = history_.samples();
    drawn_history_ = {};
    std::vector<double> runs, medians, mins;
    double top = 0;
    for (const TimingSample& s : samples) {
        runs.push_back(double(s.run));
        medians.push_back(s.stats.median_ms);
        mins.push_back(s.stats.min_ms);
        top = std::max(top, s.stats.median_ms);
    }
    const int n = int(samples.size());
    if (n > 0 && ImPlot::BeginPlot("##history", ImVec2(-1, ImGui::GetFontSize() * 10))) {
        // Time from zero (a change in speed reads as a change in height), each run a step on the x axis.
        ImPlot::SetupAxes("run #", "time (ms)");
        ImPlot::SetupAxisLimits(ImAxis_X1, runs.front() - 0.5, runs.back() + 0.5, ImPlotCond_Always);
        ImPlot::SetupAxisLimits(ImAxis_Y1, 0, top > 0 ? top * 1.2 : 1, ImPlotCond_Always);
        ImPlot::SetupAxisFormat(ImAxis_X1, "%.0f");
        // A few runs: one tick per run (ImPlot's own ticks would fall on halves and print "2" twice).
        if (runs.back() - runs.front() <= 12) ImPlot::SetupAxisTicks(ImAxis_X1, runs.front(), runs.back(), n);
        ImPlot::SetupLegend(ImPlotLocation_South, ImPlotLegendFlags_Horizontal);
        const float marker = ImGui::GetFontSize() * 0.25f;
        ImPlot::PlotLine("median", runs.data(), medians.data(), n,
                         ImPlotSpec(ImPlotProp_Marker, ImPlotMarker_Circle, ImPlotProp_MarkerSize, marker));
        ImPlot::PlotLine("min", runs.data(), mins.data(), n,
                         ImPlotSpec(ImPlotProp_Marker, ImPlotMarker_Square, ImPlotProp_MarkerSize, marker * 0.8f));
        drawn_history_.valid = true;
        drawn_history_.points = size_t(n);
        const ImVec2 pos = ImPlot::GetPlotPos(), size = ImPlot::GetPlotSize();
        drawn_history_.x0 = pos.x;
        drawn_history_.y0 = pos.y;
        drawn_history_.x1 = pos.x + size.x;
        drawn_history_.y1 = pos.y + size.y;
        if (ImPlot::IsPlotHovered()) {
            // The run nearest the mouse, with the launch configuration it came from.
            const double x = ImPlot::GetPlotMousePos().x;
            size_t i = 0;
            for (size_t k = 1; k < samples.size(); ++k)
                if (std::abs(runs[k] - x) < std::abs(runs[i] - x)) i = k;
            const TimingSample& s = samples[i];
            char text[512];
            std::snprintf(text, sizeof text, "run #%llu %s\nmedian %.4f ms (min %.4f)\ngrid %s block %s\n%s",
                          static_cast<unsigned long long>(s.run), s.kernel.c_str(), s.stats.median_ms, s.stats.min_ms,
                          s.grid.str().c_str(), s.block.str().c_str(), s.params.c_str());
            drawn_history_.hover = text;
            ImGui::SetTooltip("%s", text);
        }
        ImPlot::EndPlot();
    }

    if (ImGui::SmallButton("Clear history")) {
        history_.clear();
        return;
    }
    const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
    if (!ImGui::BeginTable("##runs", 5, flags)) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("run");
    ImGui::TableSetupColumn("grid");
    ImGui::TableSetupColumn("block");
    ImGui::TableSetupColumn("median ms");
    ImGui::TableSetupColumn("GB/s");
    ImGui::TableHeadersRow();
    for (auto it = samples.rbegin(); it != samples.rend(); ++it) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%llu", static_cast<unsigned long long>(it->run));
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n%s", it->kernel.c_str(), it->params.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(it->grid.str().c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(it->block.str().c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%.4f", it->stats.median_ms);
        ImGui::TableNextColumn();
        ImGui::Text("%.1f", it->bandwidth_gbps);
    }
    ImGui::EndTable();
}

}  // namespace cp::ui
