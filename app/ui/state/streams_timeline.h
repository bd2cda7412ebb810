// What the Streams panel draws, computed from a run's StreamsReport without ImGui (so tests check the layout):
// one lane per stream, a bar per operation, the time axis, the totals and the hover text of a bar.
#pragma once

#include "core/session/run_report.h"

#include <string>
#include <vector>

namespace cp::ui {

struct TimelineBar {
    int lane = 0;  // the stream
    int chunk = 0;
    StreamOpKind kind = StreamOpKind::Kernel;
    double start_ms = 0, end_ms = 0;
    uint64_t bytes = 0;
};

struct StreamsTimeline {
    int lanes = 0;                         // streams: lane k is stream k, drawn from the top
    std::vector<std::string> lane_labels;  // "stream 0"
    std::vector<TimelineBar> bars;
    double axis_ms = 0;  // the time axis runs from 0 to this (the S-stream total)
    std::string totals;  // "4 streams: 3.100 ms   one stream: 5.020 ms   38% less"
    std::string note;    // how to read it (CPU backend: nothing overlaps; events vs host clock)
    size_t bars_in_lane(int lane) const;
};

// Lane half-height in lane units: a bar of lane k covers y in [k - kBarHalf, k + kBarHalf].
constexpr double kBarHalf = 0.35;

StreamsTimeline layout_streams_timeline(const StreamsReport& report);
// The bar at time `ms` and height `y` (lane units), or null; for the hover.
const TimelineBar* bar_at(const StreamsTimeline& t, double ms, double y);
// "chunk 3 on stream 1: kernel\nstart 1.2340 ms, took 0.4560 ms" (+ bytes for copies).
std::string bar_tooltip(const TimelineBar& b);
// "host -> device", "kernel", "device -> host": the legend's words.
const char* stream_op_label(StreamOpKind k);

}  // namespace cp::ui
