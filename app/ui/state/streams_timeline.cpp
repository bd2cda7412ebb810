// Layout of the Streams panel's timeline (see streams_timeline.h): bars per lane, totals and hover texts.
#include "ui/state/streams_timeline.h"

#include <cmath>
#include <cstdio>

namespace cp::ui {

size_t StreamsTimeline::bars_in_lane(int lane) const {
    size_t n = 0;
    for (const TimelineBar& b : bars) n += b.lane == lane;
    return n;
}

const char* stream_op_label(StreamOpKind k) {
    switch (k) {
        case StreamOpKind::H2D:
            return "host -> device";
        case StreamOpKind::Kernel:
            return "kernel";
        case StreamOpKind::D2H:
            return "device -> host";
    }
    return "?";
}

StreamsTimeline layout_streams_timeline(const StreamsReport& r) {
    StreamsTimeline t;
    t.lanes = r.streams;
    for (int k = 0; k < r.streams; ++k) t.lane_labels.push_back("stream " + std::to_string(k));
    for (const StreamOp& op : r.ops) {
        if (op.stream < 0 || op.stream >= r.streams) continue;
        t.bars.push_back({op.stream, op.chunk, op.kind, op.start_ms, op.end_ms, op.bytes});
        t.axis_ms = std::max(t.axis_ms, op.end_ms);
    }
    t.axis_ms = std::max(t.axis_ms, r.total_ms);
    if (t.axis_ms <= 0) t.axis_ms = 1;
    char text[256];
    if (r.concurrent && r.one_stream_ms > 0) {
        const double gained = r.gained_ms();
        std::snprintf(text, sizeof text, "%d streams: %.3f ms    one stream: %.3f ms    %.0f%% %s", r.streams,
                      r.total_ms, r.one_stream_ms, 100.0 * std::abs(gained) / r.one_stream_ms,
                      gained >= 0 ? "less" : "more");
        t.note = "Each bar is one operation of one chunk (" + std::to_string(r.chunks) + " chunks of " + r.param +
                 " = " + std::to_string(r.elements) +
                 "), timed with CUDA events recorded before and after it on its "
                 "stream. Bars of different streams above each other ran at the same time.";
    } else {
        std::snprintf(text, sizeof text, "%d streams: %.3f ms (one after another)", r.streams, r.total_ms);
        t.note = std::string(r.host_clock ? "This backend has no copy engines: the " + std::to_string(r.chunks) +
                                                " chunks' operations ran one after another, timed by the host clock. "
                                                "The lanes show which stream each would be queued on; on a GPU they "
                                                "overlap."
                                          : "Nothing overlapped on this device.");
    }
    t.totals = text;
    return t;
}

const TimelineBar* bar_at(const StreamsTimeline& t, double ms, double y) {
    const int lane = int(std::lround(y));
    if (lane < 0 || lane >= t.lanes || std::abs(y - lane) > kBarHalf) return nullptr;
    // Very short operations are drawn at least a pixel or so wide: pick the nearest within 0.5% of the axis.
    const double slack = t.axis_ms * 0.005;
    const TimelineBar* best = nullptr;
    double best_distance = slack;
    for (const TimelineBar& b : t.bars) {
        if (b.lane != lane) continue;
        const double d = ms < b.start_ms ? b.start_ms - ms : ms > b.end_ms ? ms - b.end_ms : 0;
        if (d <= best_distance) {
            best = &b;
            best_distance = d;
            if (d == 0) break;
        }
    }
    return best;
}

std::string bar_tooltip(const TimelineBar& b) {
    char text[256];
    std::snprintf(text, sizeof text, "chunk %d on stream %d: %s\nstart %.4f ms, took %.4f ms", b.chunk, b.lane,
                  stream_op_label(b.kind), b.start_ms, b.end_ms - b.start_ms);
    std::string out = text;
    if (b.kind != StreamOpKind::Kernel) {
        const double ms = b.end_ms - b.start_ms;
        std::snprintf(text, sizeof text, "\n%.2f MB", double(b.bytes) / 1e6);
        out += text;
        if (ms > 0) {
            std::snprintf(text, sizeof text, " at %.1f GB/s", double(b.bytes) / (ms * 1e-3) / 1e9);
            out += text;
        }
    }
    return out;
}

}  // namespace cp::ui
