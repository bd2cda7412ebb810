// Charts of a launch and a sweep drawn with ImPlot: the Sweep panel and the command line's pictures
// (`run --trace` timeline.png, `sweep --png`, coverage and error maps, via ui/chart_pictures.h) call the same
// functions, so a class sees the same chart on the projector and in the window.
#pragma once

#include "core/data/image_legend.h"
#include "core/session/run_report.h"
#include "core/session/sweep.h"

#include <imgui.h>

#include <optional>
#include <string>
#include <vector>

namespace cp::ui {

// What a chart drew in text (title, axis labels, tick labels, legend entries): the debug hook the tests read
// (a label the chart never drew cannot be claimed by it), and `labels = false` draws the chart bare.
struct ChartText {
    bool labels = true;
    std::vector<std::string> drawn;
    void add(const std::string& text) { drawn.push_back(text); }
};

// The sweep: median time per block shape as bars (the fastest gold) on the left axis, the predicted occupancy
// as a line on the right axis. Returns the index of the shape under the mouse, or -1.
int sweep_chart(const SweepResult& sweep, ImVec2 size, ChartText* text = nullptr);

// A trace sorted into lanes once (the window keeps it between frames): the units in order, each lane's blocks
// by start time, the first start and last end, and how many blocks the launch had.
struct TimelineData {
    bool sm = false;  // lanes are SMs (a GPU) rather than CPU workers
    std::vector<uint32_t> units;
    std::vector<std::vector<const BlockTrace*>> lanes;  // point into the trace, which must outlive this
    uint64_t t0 = UINT64_MAX, t1 = 0, blocks = 0;
};
TimelineData timeline_data(const LaunchTrace& trace);

// A traced launch: one lane per SM (or CPU worker), "SM 0" at the top; time in microseconds from the first
// block's start; each block a bar coloured by its linear block index (the colour bar beside it says which),
// so the order in which the blocks were handed out shows. Returns the block under the mouse, if any.
std::optional<uint64_t> timeline_chart(const TimelineData& data, ImVec2 size, ChartText* text = nullptr);
std::optional<uint64_t> timeline_chart(const LaunchTrace& trace, ImVec2 size, ChartText* text = nullptr);

// A map of one output's elements (coverage or error) drawn as `texture` (width x height elements) on axes in
// element coordinates, with `legend` entries as a legend, or a colour bar from 0 to `colour_bar_max` labelled
// `colour_bar_label` when that is not empty (`colour_bar_colormap` then names the app's colormap).
struct ElementMapChart {
    std::string title;
    ImTextureID texture = 0;
    int width = 0, height = 0;
    std::vector<LegendEntry> legend;
    std::string colour_bar_label;
    double colour_bar_max = 1;
};
void element_map_chart(const ElementMapChart& map, ImVec2 size, ChartText* text = nullptr);

}  // namespace cp::ui
