// The sweep, timeline and element-map charts (charts.h), drawn with ImPlot for the window and for the command
// line's offscreen pictures alike.
#include "ui/charts.h"

#include "ui/plots.h"

#include <implot.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace cp::ui {
namespace {

ImPlotAxisFlags axis_flags(const ChartText* text) {
    return text && !text->labels ? ImPlotAxisFlags_NoLabel | ImPlotAxisFlags_NoTickLabels : ImPlotAxisFlags_None;
}

// Records `label` as drawn and returns it, or nullptr (no label) for a chart drawn bare.
const char* label(ChartText* text, const char* s) {
    if (!text) return s;
    if (!text->labels) return nullptr;
    text->add(s);
    return s;
}

// The step between labelled ticks so that labels `spacing` pixels apart fit `pixels`: 1, 2, 4, 5, 8, 10, 16, 20...
int tick_step(int count, float pixels, float spacing) {
    const float need = float(count) * spacing / std::max(pixels, 1.0f);
    for (int step : {1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 50, 64, 100, 128, 250, 500, 1000})
        if (float(step) >= need) return step;
    return int(std::ceil(need));
}

// Ticks with their own labels on `axis` of the plot being set up (between BeginPlot and SetupFinish), each label
// also recorded for the picture's text (ChartText).
void setup_named_ticks(ImAxis axis, const std::vector<double>& at, const std::vector<std::string>& names,
                       ChartText* text) {
    if (at.empty()) return;
    std::vector<const char*> tick_text;
    for (const std::string& n : names) {
        tick_text.push_back(n.c_str());
        if (text && text->labels) text->add(n);
    }
    ImPlot::SetupAxisTicks(axis, at.data(), int(at.size()), tick_text.data());
}

// A block shape as short as it reads: "256" (1D), "16x16" (2D), "8x8x4" (3D); the tick labels then fit more often.
std::string shape_name(const Dim3& b) {
    if (b.z == 1 && b.y == 1) return std::to_string(b.x);
    if (b.z == 1) return std::to_string(b.x) + "x" + std::to_string(b.y);
    return b.str();
}

}  // namespace

int sweep_chart(const SweepResult& r, ImVec2 size, ChartText* text) {
    std::vector<double> xs, times, occupancy, best_x, best_y;
    std::vector<std::string> names;
    for (size_t i = 0; i < r.configs.size(); ++i) {
        const SweepConfig& c = r.configs[i];
        xs.push_back(double(i));
        times.push_back(c.timed() ? c.median_ms : 0.0);
        occupancy.push_back(c.predicted.occupancy * 100);
        names.push_back(shape_name(c.block));
        if (int(i) == r.best) {
            best_x.push_back(double(i));
            best_y.push_back(c.median_ms);
        }
    }
    // Tick labels: every shape when they fit, otherwise every k-th.
    const size_t n = r.configs.size();
    float label_width = 0;
    for (const std::string& name : names)
        label_width = std::max(label_width, ImGui::CalcTextSize((name + "  ").c_str()).x);
    const float width = size.x > 0 ? size.x : ImGui::GetContentRegionAvail().x;
    const size_t every = std::max<size_t>(1, size_t(std::ceil(float(n) * label_width / std::max(width, 1.0f))));
    std::vector<double> tick_at;
    std::vector<const char*> tick_text;
    for (size_t i = 0; i < n; i += every) {
        tick_at.push_back(double(i));
        tick_text.push_back(names[i].c_str());
        if (text && text->labels) text->add(names[i]);
    }
    const bool bare = text && !text->labels;
    if (!ImPlot::BeginPlot("##sweep_chart", size, bare ? ImPlotFlags_NoLegend : ImPlotFlags_None)) return -1;
    ImPlot::SetupAxis(ImAxis_X1, label(text, "block shape (threads per block: x, x*y or x*y*z)"), axis_flags(text));
    ImPlot::SetupAxis(ImAxis_Y1, label(text, "median time (ms)"), axis_flags(text));
    ImPlot::SetupAxis(ImAxis_Y2, label(text, "predicted occupancy (%)"), ImPlotAxisFlags_AuxDefault | axis_flags(text));
    ImPlot::SetupAxisLimits(ImAxis_X1, -0.75, double(n) - 0.25, ImPlotCond_Always);
    double top = 0;
    for (const SweepConfig& c : r.configs)
        if (c.timed()) top = std::max(top, c.median_ms);
    ImPlot::SetupAxisLimits(ImAxis_Y1, 0, top > 0 ? top * 1.15 : 1, ImPlotCond_Always);
    ImPlot::SetupAxisLimits(ImAxis_Y2, 0, 115, ImPlotCond_Always);
    if (n > 0) ImPlot::SetupAxisTicks(ImAxis_X1, tick_at.data(), int(tick_at.size()), tick_text.data());
    // Above the plot, in one row: inside it would hide the occupancy line's 100%.
    ImPlot::SetupLegend(ImPlotLocation_North, ImPlotLegendFlags_Outside | ImPlotLegendFlags_Horizontal);
    ImPlot::SetAxes(ImAxis_X1, ImAxis_Y1);
    ImPlot::PlotBars(bare ? "##median" : "median time", xs.data(), times.data(), int(n), 0.8);
    if (!best_x.empty())
        ImPlot::PlotBars(bare ? "##fastest" : "fastest", best_x.data(), best_y.data(), 1, 0.8,
                         ImPlotSpec(ImPlotProp_FillColor, IM_COL32(250, 190, 40, 255)));
    ImPlot::SetAxes(ImAxis_X1, ImAxis_Y2);
    ImPlot::PlotLine(bare ? "##occupancy" : "predicted occupancy", xs.data(), occupancy.data(), int(n),
                     ImPlotSpec(ImPlotProp_Marker, ImPlotMarker_Circle, ImPlotProp_MarkerSize,
                                ImGui::GetFontSize() * 0.2f, ImPlotProp_LineColor, IM_COL32(255, 255, 255, 255)));
    if (text && text->labels) {
        text->add("median time");
        if (!best_x.empty()) text->add("fastest");
        text->add("predicted occupancy");
    }
    int hovered = -1;
    if (ImPlot::IsPlotHovered()) {
        const long i = std::lround(ImPlot::GetPlotMousePos(ImAxis_X1, ImAxis_Y1).x);
        if (i >= 0 && i < long(n)) hovered = int(i);
    }
    ImPlot::EndPlot();
    return hovered;
}

TimelineData timeline_data(const LaunchTrace& trace) {
    TimelineData d;
    d.sm = trace.unit == "sm";
    std::map<uint32_t, std::vector<const BlockTrace*>> by_unit;
    for (const BlockTrace& b : trace.blocks) {
        if (b.start_ns == 0 && b.end_ns == 0) continue;  // a block that recorded nothing
        by_unit[b.unit].push_back(&b);
        d.t0 = std::min(d.t0, b.start_ns);
        d.t1 = std::max(d.t1, b.end_ns);
        d.blocks = std::max(d.blocks, b.block + 1);
    }
    for (auto& [unit, blocks] : by_unit) {
        std::sort(blocks.begin(), blocks.end(), [](auto* a, auto* b) { return a->start_ns < b->start_ns; });
        d.units.push_back(unit);
        d.lanes.push_back(std::move(blocks));
    }
    if (d.t1 < d.t0) d.t0 = d.t1 = 0;
    return d;
}

// The blocks' colour scale beside the timeline: each block index in the colour its bars have, labelled at whole
// indices only, 0 to the last at a step the height allows. (ImPlot's ColormapScale puts its ticks at fractions,
// which whole-number labels showed as 0, 0, 1, 2, 2, 2, 3 for 6 blocks.)
static void block_scale(const char* label, uint64_t blocks, ImVec2 size, int cmap, ChartText* text) {
    const uint64_t last = std::max<uint64_t>(blocks, 1) - 1;
    const ImPlotFlags flags = ImPlotFlags_NoLegend | ImPlotFlags_NoMouseText | ImPlotFlags_NoMenus |
                              ImPlotFlags_NoBoxSelect | ImPlotFlags_NoInputs | ImPlotFlags_NoFrame;
    if (!ImPlot::BeginPlot("##block_scale", size, flags)) return;
    ImPlot::SetupAxis(ImAxis_X1, nullptr, ImPlotAxisFlags_NoDecorations | ImPlotAxisFlags_Lock);
    ImPlot::SetupAxis(ImAxis_Y1, label, ImPlotAxisFlags_Opposite | ImPlotAxisFlags_Lock | ImPlotAxisFlags_NoGridLines);
    ImPlot::SetupAxisLimits(ImAxis_X1, 0, 1, ImPlotCond_Always);
    ImPlot::SetupAxisLimits(ImAxis_Y1, -0.5, double(last) + 0.5, ImPlotCond_Always);
    const int step = tick_step(int(std::min<uint64_t>(last + 1, 1u << 30)), size.y - ImGui::GetFontSize() * 2,
                               ImGui::GetFontSize() * 1.4f);
    std::vector<double> at;
    std::vector<std::string> names;
    for (uint64_t i = 0; i <= last; i += uint64_t(step)) {
        at.push_back(double(i));
        names.push_back(std::to_string(i));
    }
    setup_named_ticks(ImAxis_Y1, at, names, text);
    ImPlot::SetupFinish();
    // One row per block (at most 1024, sampled evenly beyond that); the heatmap's first row is drawn at the top.
    const int rows = int(std::min<uint64_t>(last + 1, 1024));
    std::vector<double> values(static_cast<size_t>(rows));
    for (int r = 0; r < rows; ++r)
        values[size_t(r)] = rows == 1 ? 0.0 : double(rows - 1 - r) * double(last) / double(rows - 1);
    ImPlot::PushColormap(cmap);
    ImPlot::PlotHeatmap("##blocks", values.data(), rows, 1, 0, std::max(1.0, double(last)), nullptr,
                        ImPlotPoint(0, -0.5), ImPlotPoint(1, double(last) + 0.5));
    ImPlot::PopColormap();
    ImPlot::EndPlot();
}

std::optional<uint64_t> timeline_chart(const TimelineData& d, ImVec2 size, ChartText* text) {
    if (d.lanes.empty()) {
        ImGui::TextDisabled("The trace recorded no blocks.");
        return std::nullopt;
    }
    const bool bare = text && !text->labels;
    const int lanes = std::max<int>(1, int(d.lanes.size()));
    // Microseconds (a GPU's blocks take a few); milliseconds when that would need five-digit ticks (the CPU).
    const bool in_ms = double(d.t1 - d.t0) >= 1e7;
    const double ns_per_unit = in_ms ? 1e6 : 1e3;
    const double span = double(d.t1 - d.t0) / ns_per_unit;
    const int cmap = implot_colormap(render::Colormap::Viridis);
    const float bar_width = colour_bar_width() + ImGui::GetFontSize() * 1.5f;  // the scale's label runs beside it
    const ImVec2 plot_size(std::max(size.x - bar_width - ImGui::GetStyle().ItemSpacing.x, 50.0f), size.y);

    // Lane labels "SM 0", "SM 8"... at a spacing the text size allows.
    const int step = tick_step(lanes, plot_size.y - ImGui::GetFontSize() * 4, ImGui::GetFontSize() * 1.3f);
    std::vector<std::string> names;
    std::vector<double> at;
    for (int l = 0; l < lanes && !d.units.empty(); l += step) {
        names.push_back((d.sm ? "SM " : "worker ") + std::to_string(d.units[size_t(l)]));
        at.push_back(double(l));
    }
    std::optional<uint64_t> hovered;
    if (ImPlot::BeginPlot("##timeline_chart", plot_size, ImPlotFlags_NoLegend | ImPlotFlags_NoMouseText)) {
        ImPlot::SetupAxis(ImAxis_X1,
                          label(text, in_ms ? "time since the first block started (ms)"
                                            : "time since the first block started (\xC2\xB5s)"),
                          axis_flags(text));
        ImPlot::SetupAxis(ImAxis_Y1, label(text, d.sm ? "SM" : "CPU worker"),
                          ImPlotAxisFlags_Invert | ImPlotAxisFlags_NoGridLines | axis_flags(text));
        ImPlot::SetupAxisLimits(ImAxis_X1, 0, span > 0 ? span * 1.01 : 1, ImPlotCond_Always);
        ImPlot::SetupAxisLimits(ImAxis_Y1, -0.6, double(lanes) - 0.4, ImPlotCond_Always);
        setup_named_ticks(ImAxis_Y1, at, names, text);
        ImPlot::SetupFinish();
        ImDrawList* list = ImPlot::GetPlotDrawList();
        ImPlot::PushPlotClipRect();
        const double colour_scale = d.blocks > 1 ? 1.0 / double(d.blocks - 1) : 0.0;
        for (size_t l = 0; l < d.lanes.size(); ++l) {
            // A bar of a pixel or less ending in a column already painted on this lane is skipped: a frame then
            // draws about one bar per pixel column and lane however many blocks ran (wider bars always draw, as
            // the blocks an SM runs at once overlap in its lane).
            float painted_to = -1e30f;
            for (const BlockTrace* b : d.lanes[l]) {
                ImVec2 a = ImPlot::PlotToPixels(double(b->start_ns - d.t0) / ns_per_unit, double(l) - 0.4);
                ImVec2 c = ImPlot::PlotToPixels(double(b->end_ns - d.t0) / ns_per_unit, double(l) + 0.4);
                if (a.y > c.y) std::swap(a.y, c.y);
                c.x = std::max(c.x, a.x + 1.0f);  // a very short block still shows
                if (c.x - a.x <= 1.5f && std::floor(c.x) <= painted_to) continue;
                painted_to = std::max(painted_to, std::floor(c.x));
                const ImU32 fill =
                    ImGui::GetColorU32(ImPlot::SampleColormap(float(double(b->block) * colour_scale), cmap));
                list->AddRectFilled(a, c, fill);
                // A dark edge tells back-to-back blocks apart where there is room for one.
                if (c.x - a.x > 4 && c.y - a.y > 4) list->AddRect(a, c, IM_COL32(0, 0, 0, 160));
            }
        }
        ImPlot::PopPlotClipRect();
        if (ImPlot::IsPlotHovered() && !d.lanes.empty()) {
            const ImPlotPoint m = ImPlot::GetPlotMousePos();
            const long lane = std::lround(m.y);
            if (lane >= 0 && lane < long(d.lanes.size())) {
                const double t_ns = m.x * ns_per_unit + double(d.t0);
                for (const BlockTrace* b : d.lanes[size_t(lane)])
                    if (double(b->start_ns) <= t_ns && t_ns <= double(b->end_ns)) hovered = b->block;
            }
        }
        ImPlot::EndPlot();
    }
    ImGui::SameLine();
    if (bare) {
        ImGui::Dummy(ImVec2(bar_width, plot_size.y));
    } else {
        block_scale(label(text, "block index"), d.blocks, ImVec2(bar_width, plot_size.y), cmap, text);
    }
    return hovered;
}

std::optional<uint64_t> timeline_chart(const LaunchTrace& trace, ImVec2 size, ChartText* text) {
    return timeline_chart(timeline_data(trace), size, text);
}

void element_map_chart(const ElementMapChart& map, ImVec2 size, ChartText* text) {
    const bool bare = text && !text->labels;
    const bool bar = !map.colour_bar_label.empty();
    const float bar_width = bar ? colour_bar_width() + ImGui::GetFontSize() * 1.5f : 0.0f;
    const ImVec2 plot_size(std::max(size.x - (bar ? bar_width + ImGui::GetStyle().ItemSpacing.x : 0.0f), 50.0f),
                           size.y);
    // Square elements unless the map is a long strip (1D outputs), which would then be a thin line.
    const bool equal = map.height * 6 >= map.width;
    ImPlotFlags flags = ImPlotFlags_NoMouseText | (equal ? ImPlotFlags_Equal : ImPlotFlags_None);
    if (bare || map.legend.empty()) flags |= ImPlotFlags_NoLegend;
    if (ImPlot::BeginPlot("##element_map", plot_size, flags)) {
        ImPlot::SetupAxis(ImAxis_X1, label(text, "x (element column)"), axis_flags(text));
        ImPlot::SetupAxis(ImAxis_Y1, label(text, "y (element row)"), ImPlotAxisFlags_Invert | axis_flags(text));
        ImPlot::SetupAxisLimits(ImAxis_X1, 0, map.width, ImPlotCond_Always);
        ImPlot::SetupAxisLimits(ImAxis_Y1, 0, map.height, ImPlotCond_Always);
        ImPlot::SetupLegend(ImPlotLocation_South, ImPlotLegendFlags_Outside);
        ImPlot::SetupFinish();
        // ImPlot puts the texture's top row at the y axis's maximum, which the inverted axis draws at the bottom:
        // flip v so that row 0 is at the top, as in the output image.
        ImPlot::PlotImage("##map", map.texture, ImPlotPoint(0, 0), ImPlotPoint(map.width, map.height), ImVec2(0, 1),
                          ImVec2(1, 0));
        if (!bare)
            for (const LegendEntry& e : map.legend) {
                ImPlot::PlotDummy(e.label.c_str(),
                                  ImPlotSpec(ImPlotProp_FillColor, IM_COL32(e.rgb[0], e.rgb[1], e.rgb[2], 255)));
                if (text) text->add(e.label);
            }
        ImPlot::EndPlot();
    }
    if (!bar) return;
    ImGui::SameLine();
    if (bare) {
        ImGui::Dummy(ImVec2(bar_width, plot_size.y));
        return;
    }
    ImPlot::ColormapScale(label(text, map.colour_bar_label.c_str()), 0, map.colour_bar_max > 0 ? map.colour_bar_max : 1,
                          ImVec2(bar_width, plot_size.y), "%g", ImPlotColormapScaleFlags_None,
                          implot_colormap(render::Colormap::Magma));
}

}  // namespace cp::ui
