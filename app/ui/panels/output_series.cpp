// Output panel, 1D views: a plot with axes, ticks and the hovered value (ImPlot; bars for short integer
// series such as a histogram's bins, for long ones a min..max band per bucket with its mean) and a table of
// every element.
#include "ui/panels/output_panel.h"

#include <imgui.h>
#include <implot.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>

namespace cp::ui {
namespace {

// Up to this many elements are plotted one by one; longer series are cut into half as many buckets, each drawn
// as its min..max band and its mean, so spikes show and the plot is not a solid block.
constexpr size_t kMaxPlotPoints = 4096;
// Integer series up to this long are drawn as bars (counts, bins).
constexpr size_t kMaxBars = 512;

// The strip's colour modes, in the combo's order.
constexpr OverlayColour kStripModes[] = {OverlayColour::None, OverlayColour::Block, OverlayColour::Warp,
                                         OverlayColour::Lane, OverlayColour::ThreadInBlock};

// The launch as a strip along the plot's bottom: each pixel column the colour of the element at its centre
// (runs of one colour drawn as one rectangle), block boundaries as lines where blocks are at least a few
// pixels wide, and the hovered element's block outlined. Elements without a single owner stay uncoloured.
void draw_launch_strip(const OutputView& v, size_t count, const OverlaySettings& s, std::optional<uint64_t> hovered,
                       DrawnPlot& drawn) {
    const ImVec2 pos = ImPlot::GetPlotPos(), size = ImPlot::GetPlotSize();
    const ImPlotRect limits = ImPlot::GetPlotLimits();
    const double x_min = limits.X.Min, x_span = limits.X.Max - limits.X.Min;
    if (size.x < 2 || x_span <= 0) return;
    const float h = std::min(ImGui::GetFontSize() * 1.2f, size.y * 0.3f);
    const float y0 = pos.y + size.y - h, y1 = pos.y + size.y;
    drawn.strip = true;
    drawn.strip_y0 = y0;
    drawn.strip_y1 = y1;
    ImDrawList* dl = ImPlot::GetPlotDrawList();
    ImPlot::PushPlotClipRect();
    auto element_at = [&](float px) { return std::llround(x_min + (double(px - pos.x) + 0.5) / size.x * x_span); };
    auto pixel_of = [&](double x) { return float(pos.x + (x - x_min) / x_span * size.x); };
    int run_start = 0;
    uint32_t run_colour = 0;
    const int columns = int(size.x);
    for (int c = 0; c <= columns; ++c) {
        uint32_t colour = 0;
        if (c < columns) {
            const long long i = element_at(pos.x + float(c));
            if (i >= 0 && uint64_t(i) < count) {
                uint8_t rgba[4];
                strip_element_rgba(owner_of_element(uint64_t(i), v.element_per_thread, v.grid, v.block), s, rgba);
                colour = IM_COL32(rgba[0], rgba[1], rgba[2], rgba[3]);
            }
        }
        if (c == columns || colour != run_colour) {
            if (run_colour != 0) dl->AddRectFilled(ImVec2(pos.x + float(run_start), y0), ImVec2(pos.x + float(c), y1), run_colour);
            run_start = c;
            run_colour = colour;
        }
    }
    // Block boundaries: between element b * blockDim.x - 1 and b * blockDim.x.
    const double block_px = double(v.block.x) / x_span * size.x;
    if (s.boundaries && v.element_per_thread && block_px >= 4) {
        const uint64_t threads = uint64_t(v.grid.x) * v.block.x;
        const uint64_t first = uint64_t(std::max(0.0, x_min)) / v.block.x + 1;
        for (uint64_t b = first; b * v.block.x < std::min<uint64_t>(count, threads); ++b) {
            const float x = pixel_of(double(b * v.block.x) - 0.5);
            if (x > pos.x + size.x) break;
            dl->AddLine(ImVec2(x, pos.y), ImVec2(x, y0), IM_COL32(255, 255, 255, 50));
            dl->AddLine(ImVec2(x, y0), ImVec2(x, y1), IM_COL32(255, 255, 255, 220), 2.0f);
        }
    }
    if (hovered) {
        if (auto o = owner_of_element(*hovered, v.element_per_thread, v.grid, v.block)) {
            const double b0 = double(o->linear_block * v.block.x) - 0.5;
            const double b1 = std::min<double>(double(count), double((o->linear_block + 1) * v.block.x)) - 0.5;
            dl->AddRect(ImVec2(pixel_of(b0), y0), ImVec2(pixel_of(b1), y1), IM_COL32(255, 255, 255, 255), 0.0f, 2.0f);
        }
    }
    ImPlot::PopPlotClipRect();
}

// The band opaque (a translucent one drawn in batches showed a bright seam where two batches overlap, in the middle
// of every long plot), with the grid drawn over it.
const ImVec4 kBandColour{0.27f, 0.40f, 0.58f, 1.0f}, kMeanColour{1.0f, 0.62f, 0.25f, 1.0f};
constexpr float kBandAlpha = 1.0f;

// Element indices on the x axis as numbers a class reads: 900, 25k, 2.5M (ImPlot's default "%g" writes 1e+06).
int index_tick(double value, char* buf, int size, void*) {
    const double a = std::abs(value);
    if (a >= 1e6) return std::snprintf(buf, size_t(size), "%gM", value / 1e6);
    if (a >= 1e4) return std::snprintf(buf, size_t(size), "%gk", value / 1e3);
    return std::snprintf(buf, size_t(size), "%g", value);  // below 10000: %g has digits enough
}

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
    int& channel = series_channel_[column_key_ + v.spec.buffer];
    channel = std::clamp(channel, 0, comps - 1);
    if (comps > 1 && !presenting_) {
        ImGui::SetNextItemWidth(ImGui::CalcTextSize("x / R").x + ImGui::GetFrameHeight() * 2);
        ImGui::Combo("component", &channel, kChannelNames, comps);
    }
    if (v.spec.kind == ViewSpec::Kind::Plot && !presenting_) {
        if (comps > 1) ImGui::SameLine();
        int mode = 0;
        for (int m = 0; m < int(std::size(kStripModes)); ++m)
            if (kStripModes[m] == strip_.colour) mode = m;
        ImGui::SetNextItemWidth(ImGui::CalcTextSize("thread in block").x + ImGui::GetFrameHeight() * 2);
        if (ImGui::BeginCombo("launch strip", mode == 0 ? "off" : overlay_colour_name(kStripModes[mode]))) {
            for (int m = 0; m < int(std::size(kStripModes)); ++m)
                if (ImGui::Selectable(m == 0 ? "off" : overlay_colour_name(kStripModes[m]), m == mode)) strip_.colour = kStripModes[m];
            ImGui::EndCombo();
        }
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("The launch along the plot's bottom: element i is thread i %% blockDim.x of block\n"
                              "i / blockDim.x, coloured by block, warp, lane or thread; white lines are block edges.");
        ImGui::SameLine();
        ImGui::Checkbox("block edges", &strip_.boundaries);
    }
    if (!presenting_)
        ImGui::TextDisabled("%zu x %s | run #%llu | grid %s, block %s", count, info.name,
                            static_cast<unsigned long long>(v.run), v.grid.str().c_str(), v.block.str().c_str());

    if (v.spec.kind == ViewSpec::Kind::Plot && count > 0) draw_series_plot(v, channel);
    if (presenting_) return;
    draw_series_table(v);
}

void OutputPanel::draw_series_plot(OutputView& v, int channel) {
    const HostBuffer& data = *v.host;
    const size_t count = data.count();
    const ElemTypeInfo& info = elem_info(data.type);
    const bool bars = !info.is_float && info.components == 1 && count <= kMaxBars;
    PlotCache& cache = plots_[column_key_ + v.spec.buffer];
    const bool new_data = cache.run != v.run || cache.channel != channel || cache.xs.empty();
    if (new_data) {
        cache.per_point = count <= kMaxPlotPoints ? 1 : (count + kMaxPlotPoints / 2 - 1) / (kMaxPlotPoints / 2);
        cache.xs.clear();
        cache.ys.clear();
        cache.lo.clear();
        cache.hi.clear();
        for (size_t start = 0; start < count; start += cache.per_point) {
            const size_t end = std::min(count, start + cache.per_point);
            double lo = element_value(data, start, channel), hi = lo, sum = lo;
            for (size_t i = start + 1; i < end; ++i) {
                const double x = element_value(data, i, channel);
                lo = std::min(lo, x);
                hi = std::max(hi, x);
                sum += x;
            }
            if (cache.per_point == 1) {
                cache.xs.push_back(double(start));
                cache.ys.push_back(lo);
                continue;
            }
            // A long series: each bucket's min..max band and its mean, at the bucket's middle.
            cache.xs.push_back(0.5 * double(start + end - 1));
            cache.ys.push_back(sum / double(end - start));
            cache.lo.push_back(lo);
            cache.hi.push_back(hi);
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
    // No vertical grid: ImPlot drew several of its x grid lines on one column in the middle of a long plot, a bright
    // line a class read as a mark of the data. The horizontal grid over the band (which is opaque: see kBandColour).
    ImPlot::SetupAxes(x_label.c_str(), y_label.c_str(), ImPlotAxisFlags_NoGridLines, ImPlotAxisFlags_Foreground);
    ImPlot::SetupAxisFormat(ImAxis_X1, index_tick, nullptr);  // 2M, not 2e+06
    if (v.spec.range_min && v.spec.range_max)
        ImPlot::SetupAxisLimits(ImAxis_Y1, *v.spec.range_min, *v.spec.range_max, new_data ? ImPlotCond_Always : ImPlotCond_Once);
    if (bars) ImPlot::PlotBars(y_label.c_str(), cache.xs.data(), cache.ys.data(), int(cache.xs.size()), 0.8);
    else if (!cache.lo.empty()) {
        // Thousands of elements to a pixel: a zig-zag through every min and max would fill the plot solid; the
        // band between them, lighter, with the mean over it, shows both the spread and the trend.
        // A band a projector shows (a light blue well clear of the background), the mean in orange over it.
        ImPlot::PlotShaded((y_label + " min..max").c_str(), cache.xs.data(), cache.lo.data(), cache.hi.data(),
                           int(cache.xs.size()),
                           ImPlotSpec(ImPlotProp_FillColor, kBandColour, ImPlotProp_FillAlpha, kBandAlpha));
        ImPlot::PlotLine((y_label + " mean").c_str(), cache.xs.data(), cache.ys.data(), int(cache.xs.size()),
                         ImPlotSpec(ImPlotProp_LineColor, kMeanColour, ImPlotProp_LineWeight, 2.0f));
    } else
        ImPlot::PlotLine(y_label.c_str(), cache.xs.data(), cache.ys.data(), int(cache.xs.size()));

    // A `devices:` run: a line where each device's part starts and its name at the top, so the picture says
    // that several devices wrote it (the main kernel's views only: the parts are its run's).
    size_t parts_marked = 0;
    if (status_.parts.size() > 1 && column_key_.rfind("variant", 0) != 0) {
        const ImPlotRect limits = ImPlot::GetPlotLimits();
        for (const OutputStatus::Part& p : status_.parts) {
            const double x = double(p.begin);
            if (p.begin > 0) ImPlot::PlotInfLines(("##part" + p.device).c_str(), &x, 1);
            // Centred on its offset: half its width right of the line, a line below the plot's top.
            const ImVec2 offset(ImGui::CalcTextSize(p.device.c_str()).x * 0.5f + ImGui::GetFontSize() * 0.3f,
                                ImGui::GetFontSize() * 0.9f);
            ImPlot::PlotText(p.device.c_str(), x, limits.Y.Max, offset);
            ++parts_marked;
        }
    }

    drawn_plot_ = {};
    drawn_plot_.valid = true;
    drawn_plot_.parts_marked = parts_marked;
    drawn_plot_.x_label = x_label;
    drawn_plot_.y_label = y_label;
    drawn_plot_.bars = bars;
    drawn_plot_.points = cache.xs.size();
    drawn_plot_.envelope = !bars && !cache.lo.empty();
    const ImVec2 pos = ImPlot::GetPlotPos(), size = ImPlot::GetPlotSize();
    drawn_plot_.x0 = pos.x;
    drawn_plot_.y0 = pos.y;
    drawn_plot_.x1 = pos.x + size.x;
    drawn_plot_.y1 = pos.y + size.y;
    drawn_plot_.x_min = ImPlot::GetPlotLimits().X.Min;
    drawn_plot_.x_max = ImPlot::GetPlotLimits().X.Max;
    std::optional<uint64_t> hovered;
    if (ImPlot::IsPlotHovered()) {
        const ImPlotPoint mouse = ImPlot::GetPlotMousePos();
        hovered = uint64_t(std::clamp(std::llround(mouse.x), 0ll, static_cast<long long>(count - 1)));
    }
    const bool one_d = v.grid.y == 1 && v.grid.z == 1 && v.block.y == 1 && v.block.z == 1;
    if (strip_.colour == OverlayColour::None)
        drawn_plot_.strip_note = "launch strip off";
    else if (!v.element_per_thread)
        drawn_plot_.strip_note = v.problem_known
                                     ? "no launch strip: many threads add to each element (not one thread per element)"
                                     : "no launch strip: the header has no `problem:` line saying which elements the "
                                       "threads own (add e.g. `problem: n`)";
    else if (!one_d)
        drawn_plot_.strip_note = "no launch strip: the launch is not 1D";
    else
        draw_launch_strip(v, count, strip_, hovered, drawn_plot_);
    if (hovered) {
        // The element under the mouse: its value, marked on the plot, and who wrote it.
        const auto i = size_t(*hovered);
        const double value = element_value(data, i, channel);
        const double mx = double(i), my = value;
        ImPlot::PlotScatter("##hovered", &mx, &my, 1,
                            ImPlotSpec(ImPlotProp_Marker, ImPlotMarker_Circle, ImPlotProp_MarkerSize, ImGui::GetFontSize() * 0.3f));
        std::string text = v.spec.buffer + "[" + std::to_string(i) + "] = " + format_value(value, info.is_float);
        if (v.element_per_thread && one_d) {
            // Only where one thread owns it: past the launch's threads a grid-stride loop may have written it.
            const auto owner = owner_of_element(i, true, v.grid, v.block);
            text += owner ? "\n" + describe_owner(owner, false)
                          : "\nno thread under i = blockIdx.x * blockDim.x + threadIdx.x (past the launch's " +
                                std::to_string(uint64_t(v.grid.x) * v.block.x) + " threads)";
        }
        // The memory view on: the element's warp, and a click (not a drag, which pans) shows it in the Memory panel.
        const bool clicked =
            ImGui::IsMouseReleased(ImGuiMouseButton_Left) && ImGui::GetIO().MouseDragMaxDistanceSqr[0] < 16.0f;
        // Only a 1D launch with one element a thread has a standard owner; otherwise say why no warp is named.
        std::string pick;
        if (one_d && v.element_per_thread)
            pick = memory_pick(owner_of_element(i, true, v.grid, v.block), v.spec.buffer + "[" + std::to_string(i) + "]",
                               uint64_t(i) * info.size, clicked);
        else if (memory_ && memory_->enabled)
            pick = !v.element_per_thread ? (v.problem_known ? "no warp to pick: many threads add to each element"
                                                            : "no warp to pick: the header has no `problem:` line")
                                         : "no warp to pick: the launch is not 1D (pick from the Memory panel's list)";
        if (!pick.empty()) text += "\n" + pick;
        drawn_plot_.hover = text;
        ImGui::SetTooltip("%s", text.c_str());
    }
    // The Memory panel's warp: a band over the elements its threads own (a 1D launch, one element a thread).
    drawn_plot_.warp_band = false;
    if (const auto fp = memory_warp(v); fp && one_d && v.element_per_thread && fp->first < count) {
        const uint64_t last = std::min<uint64_t>(fp->last, count - 1);
        const ImPlotRect lim = ImPlot::GetPlotLimits();
        ImVec2 a = ImPlot::PlotToPixels(double(fp->first) - 0.5, lim.Y.Max);
        ImVec2 b = ImPlot::PlotToPixels(double(last) + 0.5, lim.Y.Min);
        if (b.x - a.x < 4.0f) a.x -= (4.0f - (b.x - a.x)) * 0.5f, b.x = a.x + 4.0f;  // a long series: still seen
        ImPlot::PushPlotClipRect();
        ImPlot::GetPlotDrawList()->AddRectFilled(a, b, IM_COL32(80, 240, 255, 70));
        ImPlot::GetPlotDrawList()->AddRect(a, b, IM_COL32(80, 240, 255, 255), 0.0f, 2.0f);
        ImPlot::PopPlotClipRect();
        drawn_plot_.warp_band = true;
        drawn_plot_.warp_first = fp->first;
        drawn_plot_.warp_last = last;
    }
    ImPlot::EndPlot();
    if (!drawn_plot_.strip && strip_.colour != OverlayColour::None && !presenting_)
        ImGui::TextDisabled("%s", drawn_plot_.strip_note.c_str());
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
            // Past the launch's threads no thread owns it by the standard mapping (a grid-stride loop may write it).
            const auto owner = owner_of_element(i, true, v.grid, v.block);
            ImGui::TableNextColumn();
            if (owner) ImGui::Text("%u", owner->block_idx.x);
            else ImGui::TextDisabled("-");
            ImGui::TableNextColumn();
            if (owner) ImGui::Text("%u", owner->thread_idx.x);
            else ImGui::TextDisabled("-");
        }
    }
    ImGui::EndTable();
}

}  // namespace cp::ui
