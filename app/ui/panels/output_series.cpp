// Output panel, 1D views: a plot with axes, ticks and the hovered value (ImPlot; bars for short integer
// series such as a histogram's bins, a min/max-decimated line for long ones) and a table of every element.
#include "ui/panels/output_panel.h"

#include <imgui.h>
#include <implot.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cp::ui {
namespace {

// At most this many points go to the plot; longer series keep each bucket's min and max, so spikes show.
constexpr size_t kMaxPlotPoints = 4096;
// Integer series up to this long are drawn as bars (counts, bins).
constexpr size_t kMaxBars = 512;

}  // namespace

void OutputPanel::draw_series_view(OutputView& v) {
    drawn_plot_.valid = false;
    if (!v.host) {
        ImGui::TextDisabled("No data yet.");
        return;
    }
    const HostBuffer& data = *v.host;
    const size_t count = data.count();
    const ElemTypeInfo& info = elem_info(data.type);
    const int comps = int(info.components);
    int& channel = series_channel_[v.spec.buffer];
    channel = std::clamp(channel, 0, comps - 1);
    if (comps > 1 && !presenting_) {
        ImGui::SetNextItemWidth(ImGui::CalcTextSize("x / R").x + ImGui::GetFrameHeight() * 2);
        ImGui::Combo("component", &channel, kChannelNames, comps);
    }
    if (!presenting_)
        ImGui::TextDisabled("%zu x %s | run #%llu | block %s", count, info.name, static_cast<unsigned long long>(v.run),
                            v.block.str().c_str());

    if (v.spec.kind == ViewSpec::Kind::Plot && count > 0) draw_series_plot(v, channel);
    if (presenting_) return;
    draw_series_table(v);
}

void OutputPanel::draw_series_plot(OutputView& v, int channel) {
    const HostBuffer& data = *v.host;
    const size_t count = data.count();
    const ElemTypeInfo& info = elem_info(data.type);
    const bool bars = !info.is_float && info.components == 1 && count <= kMaxBars;
    PlotCache& cache = plots_[v.spec.buffer];
    const bool new_data = cache.run != v.run || cache.channel != channel || cache.xs.empty();
    if (new_data) {
        cache.per_point = count <= kMaxPlotPoints ? 1 : (count + kMaxPlotPoints / 2 - 1) / (kMaxPlotPoints / 2);
        cache.xs.clear();
        cache.ys.clear();
        for (size_t start = 0; start < count; start += cache.per_point) {
            const size_t end = std::min(count, start + cache.per_point);
            double lo = element_value(data, start, channel), hi = lo;
            for (size_t i = start + 1; i < end; ++i) {
                const double x = element_value(data, i, channel);
                lo = std::min(lo, x);
                hi = std::max(hi, x);
            }
            cache.xs.push_back(double(start));
            cache.ys.push_back(lo);
            if (cache.per_point > 1) {
                cache.xs.push_back(double(end - 1));
                cache.ys.push_back(hi);
            }
        }
        cache.run = v.run;
        cache.channel = channel;
    }

    const std::string x_label = bars ? "bin (element index)" : "element index";
    std::string y_label = v.spec.buffer;
    if (info.components > 1) y_label += std::string(".") + "xyzw"[channel];
    y_label += std::string(" (") + info.name + ")";
    const float avail = ImGui::GetContentRegionAvail().y;
    const float height = presenting_ ? avail : std::max(avail * 0.55f, ImGui::GetFontSize() * 10);
    if (new_data) ImPlot::SetNextAxesToFit();  // each run's data in full; zoom and pan until the next
    if (!ImPlot::BeginPlot("##series", ImVec2(-1, height), ImPlotFlags_NoLegend)) return;
    ImPlot::SetupAxes(x_label.c_str(), y_label.c_str());
    if (v.spec.range_min && v.spec.range_max)
        ImPlot::SetupAxisLimits(ImAxis_Y1, *v.spec.range_min, *v.spec.range_max, new_data ? ImPlotCond_Always : ImPlotCond_Once);
    if (bars) ImPlot::PlotBars(y_label.c_str(), cache.xs.data(), cache.ys.data(), int(cache.xs.size()), 0.8);
    else ImPlot::PlotLine(y_label.c_str(), cache.xs.data(), cache.ys.data(), int(cache.xs.size()));

    drawn_plot_ = {};
    drawn_plot_.valid = true;
    drawn_plot_.x_label = x_label;
    drawn_plot_.y_label = y_label;
    drawn_plot_.bars = bars;
    drawn_plot_.points = cache.xs.size();
    const ImVec2 pos = ImPlot::GetPlotPos(), size = ImPlot::GetPlotSize();
    drawn_plot_.x0 = pos.x;
    drawn_plot_.y0 = pos.y;
    drawn_plot_.x1 = pos.x + size.x;
    drawn_plot_.y1 = pos.y + size.y;
    if (ImPlot::IsPlotHovered()) {
        // The element under the mouse: its value, marked on the plot, and who wrote it.
        const ImPlotPoint mouse = ImPlot::GetPlotMousePos();
        const auto i = size_t(std::clamp(std::llround(mouse.x), 0ll, static_cast<long long>(data.count() - 1)));
        const double value = element_value(data, i, channel);
        const double mx = double(i), my = value;
        ImPlot::PlotScatter("##hovered", &mx, &my, 1,
                            ImPlotSpec(ImPlotProp_Marker, ImPlotMarker_Circle, ImPlotProp_MarkerSize, ImGui::GetFontSize() * 0.3f));
        char text[160];
        int n = std::snprintf(text, sizeof text, "%s[%zu] = %s", v.spec.buffer.c_str(), i,
                              format_value(value, info.is_float).c_str());
        if (v.element_per_thread && n > 0 && size_t(n) < sizeof text)
            std::snprintf(text + n, sizeof text - size_t(n), "\nwritten by blockIdx.x %llu, threadIdx.x %llu",
                          static_cast<unsigned long long>(i / std::max(v.block.x, 1u)),
                          static_cast<unsigned long long>(i % std::max(v.block.x, 1u)));
        drawn_plot_.hover = text;
        ImGui::SetTooltip("%s", text);
    }
    ImPlot::EndPlot();
}

void OutputPanel::draw_series_table(OutputView& v) {
    const HostBuffer& data = *v.host;
    const size_t count = data.count();
    const ElemTypeInfo& info = elem_info(data.type);
    const int comps = int(info.components);
    // Owner columns only where each element has one owner (not a histogram bin that every block adds to).
    const bool owners = v.element_per_thread;
    const int columns = 1 + comps + (owners ? 2 : 0);
    const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                  ImGuiTableFlags_SizingStretchProp;
    if (!ImGui::BeginTable("##values", columns, flags)) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("index");
    for (int c = 0; c < comps; ++c) ImGui::TableSetupColumn(comps == 1 ? "value" : kChannelNames[c]);
    if (owners) {
        ImGui::TableSetupColumn("blockIdx.x");
        ImGui::TableSetupColumn("threadIdx.x");
    }
    ImGui::TableHeadersRow();
    ImGuiListClipper clipper;
    clipper.Begin(int(std::min<size_t>(count, size_t(INT32_MAX))));
    while (clipper.Step()) {
        for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
            const size_t i = size_t(row);
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::Text("%zu", i);
            for (int c = 0; c < comps; ++c) {
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(format_value(element_value(data, i, c), info.is_float).c_str());
            }
            if (!owners) continue;
            ImGui::TableNextColumn();
            ImGui::Text("%llu", static_cast<unsigned long long>(i / std::max(v.block.x, 1u)));
            ImGui::TableNextColumn();
            ImGui::Text("%llu", static_cast<unsigned long long>(i % std::max(v.block.x, 1u)));
        }
    }
    ImGui::EndTable();
}

}  // namespace cp::ui
