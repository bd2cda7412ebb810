// Streams panel (see streams_panel.h): the layout comes from ui/state/streams_timeline.h; this file draws it
// with ImPlot (bars as rectangles in plot coordinates, lanes as the y axis's ticks).
#include "ui/panels/streams_panel.h"

#include <imgui.h>
#include <implot.h>

#include <algorithm>

namespace cp::ui {
namespace {

ImU32 op_colour(StreamOpKind k) {
    switch (k) {
        case StreamOpKind::H2D:
            return IM_COL32(66, 150, 250, 255);  // blue
        case StreamOpKind::Kernel:
            return IM_COL32(240, 140, 40, 255);  // orange
        case StreamOpKind::D2H:
            return IM_COL32(80, 190, 100, 255);  // green
    }
    return IM_COL32(200, 200, 200, 255);
}

void legend_entry(StreamOpKind k) {
    const float side = ImGui::GetTextLineHeight() * 0.8f;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float pad = (ImGui::GetTextLineHeight() - side) * 0.5f;
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + pad), ImVec2(p.x + side, p.y + pad + side),
                                              op_colour(k));
    ImGui::Dummy(ImVec2(side, ImGui::GetTextLineHeight()));
    ImGui::SameLine();
    ImGui::TextUnformatted(stream_op_label(k));
}

}  // namespace

void StreamsPanel::draw() {
    drawn_ = {};
    const StreamsReport* report = latest_ && latest_->report.streams ? &*latest_->report.streams : nullptr;
    if (!report) {
        ImGui::TextWrapped(
            "This lesson runs its launch on one stream. A lesson with a `streams: 4 over n` line "
            "(kernels/FORMAT.md) also runs it cut into chunks on several streams, and this panel then "
            "draws each stream's copies and kernels on a timeline. Open Streams in the library to see one.");
        return;
    }
    drawn_.timeline = true;
    drawn_.layout = layout_streams_timeline(*report);
    const StreamsTimeline& t = drawn_.layout;

    ImGui::TextWrapped("%s", t.totals.c_str());
    // The legend's entries wrap to a new row where the panel is narrow (large text), never past its edge.
    bool first = true;
    for (StreamOpKind k : {StreamOpKind::H2D, StreamOpKind::Kernel, StreamOpKind::D2H}) {
        const float width = ImGui::GetTextLineHeight() * 0.8f + ImGui::GetStyle().ItemSpacing.x +
                            ImGui::CalcTextSize(stream_op_label(k)).x;
        if (!first) {
            ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
            if (ImGui::GetContentRegionAvail().x < width) ImGui::NewLine();
        }
        first = false;
        legend_entry(k);
    }

    const float row = ImGui::GetFontSize() * 2.2f;
    const float height = std::max(ImGui::GetFontSize() * 8, row * float(t.lanes) + ImGui::GetFontSize() * 3.5f);
    if (ImPlot::BeginPlot("##streams", ImVec2(-1, height), ImPlotFlags_NoLegend | ImPlotFlags_NoMouseText)) {
        ImPlot::SetupAxes("time (ms)", nullptr, 0, ImPlotAxisFlags_Invert | ImPlotAxisFlags_NoGridLines);
        ImPlot::SetupAxisLimits(ImAxis_X1, 0, t.axis_ms * 1.02, ImPlotCond_Always);
        ImPlot::SetupAxisLimits(ImAxis_Y1, -0.6, double(t.lanes) - 0.4, ImPlotCond_Always);
        std::vector<const char*> labels;
        for (const std::string& l : t.lane_labels) labels.push_back(l.c_str());
        ImPlot::SetupAxisTicks(ImAxis_Y1, 0, double(std::max(t.lanes - 1, 0)), t.lanes, labels.data());
        ImPlot::SetupFinish();

        ImDrawList* list = ImPlot::GetPlotDrawList();
        ImPlot::PushPlotClipRect();
        for (const TimelineBar& b : t.bars) {
            ImVec2 a = ImPlot::PlotToPixels(b.start_ms, b.lane - kBarHalf);
            ImVec2 c = ImPlot::PlotToPixels(b.end_ms, b.lane + kBarHalf);
            if (a.x > c.x) std::swap(a.x, c.x);
            if (a.y > c.y) std::swap(a.y, c.y);
            c.x = std::max(c.x, a.x + 1.5f);  // a very short operation still shows
            list->AddRectFilled(a, c, op_colour(b.kind));
            if (c.x - a.x > 3) list->AddRect(a, c, IM_COL32(0, 0, 0, 90));  // edges between neighbouring chunks
            ++drawn_.bars_drawn;
        }
        ImPlot::PopPlotClipRect();
        const ImVec2 pos = ImPlot::GetPlotPos(), size = ImPlot::GetPlotSize();
        drawn_.x0 = pos.x;
        drawn_.y0 = pos.y;
        drawn_.x1 = pos.x + size.x;
        drawn_.y1 = pos.y + size.y;
        if (ImPlot::IsPlotHovered()) {
            const ImPlotPoint m = ImPlot::GetPlotMousePos();
            if (const TimelineBar* b = bar_at(t, m.x, m.y)) {
                drawn_.hover = bar_tooltip(*b);
                ImGui::SetTooltip("%s", drawn_.hover.c_str());
            }
        }
        ImPlot::EndPlot();
    }
    ImGui::TextWrapped("%s", t.note.c_str());
}

}  // namespace cp::ui
