// KernelSession::run_streams: a file with `streams: S over n` runs its launch once more, split by the chunk plan
// (chunk_plan.h) into C chunks, chunk k on stream k % S with its copies in, kernel and copies out. The outputs
// are reassembled from the chunks' copies and checked like any run's, so a wrong chunk offset fails the check.
#include "core/session/chunk_plan.h"
#include "core/session/scalar_arg.h"
#include "core/session/session.h"

#include <algorithm>
#include <cstdio>

namespace cp {

double StreamsReport::copy_kernel_overlap_ms() const {
    double total = 0;
    for (const StreamOp& a : ops) {
        if (a.kind == StreamOpKind::Kernel) continue;
        for (const StreamOp& b : ops) {
            if (b.kind != StreamOpKind::Kernel || b.stream == a.stream) continue;
            total += std::max(0.0, std::min(a.end_ms, b.end_ms) - std::max(a.start_ms, b.start_ms));
        }
    }
    return total;
}

std::string StreamsReport::summary() const {
    char text[200];
    if (one_stream_ms > 0 && concurrent) {
        std::snprintf(text, sizeof text, "%d streams, %d chunks: %.3f ms (one stream: %.3f ms, %.0f%% %s)", streams,
                      chunks, total_ms, one_stream_ms, 100.0 * std::abs(gained_ms()) / one_stream_ms,
                      gained_ms() >= 0 ? "less" : "more");
    } else {
        std::snprintf(text, sizeof text, "%d streams, %d chunks: %.3f ms, run one after another (%s)", streams, chunks,
                      total_ms, host_clock ? "host clock, no copy engines to overlap" : "nothing overlapped");
    }
    return text;
}

std::string streams_timeline_text(const StreamsReport& s, int width) {
    std::string text;
    const double total = s.total_ms > 0 ? s.total_ms : 1;
    width = std::max(width, 8);
    for (size_t lane = 0; lane < s.lanes.size(); ++lane) {
        std::string row(size_t(width), '.');
        for (size_t i : s.lanes[lane]) {
            const StreamOp& op = s.ops[i];
            const char mark = op.kind == StreamOpKind::H2D ? 'H' : op.kind == StreamOpKind::Kernel ? 'K' : 'D';
            // Every column the operation touches, at least one, so that short kernels still show.
            int first = int(op.start_ms / total * width), last = int(op.end_ms / total * width);
            first = std::clamp(first, 0, width - 1);
            last = std::clamp(std::max(last, first), 0, width - 1);
            if (last > first && op.end_ms / total * width == double(last)) --last;  // ends on a column's edge
            for (int c = first; c <= last; ++c) row[size_t(c)] = mark;
        }
        text += "stream " + std::to_string(lane) + (lane < 10 && s.lanes.size() > 10 ? "  |" : " |") + row + "|\n";
    }
    char legend[160];
    std::snprintf(legend, sizeof legend, "H host->device, K kernel, D device->host; 0 to %.3f ms (%s)\n", s.total_ms,
                  s.host_clock ? "host clock" : "CUDA events");
    return text + legend;
}

Result<StreamsReport> KernelSession::run_streams(const ResolvedRun& resolved, ModuleId module, Streamed& into) {
    const ResolvedStreams& st = *resolved.streams;
    const KernelSpec& spec = kernel_.spec;
    const std::string where = "`streams:` (line " + std::to_string(st.line) + ")";
    const ChunkPlan& plan = st.plan;  // planned when the run was resolved (session_resolve.cpp)
    if (plan.parts.empty())
        return make_error(ErrorKind::Internal, where + ": the run was resolved without its chunks planned");

    // The outputs' device copies are first spoiled (NaN bytes), so that what the ordinary launch left there
    // cannot stand in for a chunk that was not written.
    for (const BufferSpec& b : spec.buffers) {
        if (b.direction != Direction::Out) continue;
        UploadResult u = engine_.upload({buffers_.at(b.name).id, {std::byte{0xFF}}, true, false, 0});
        if (u.error)
            return make_error(u.error->kind,
                              "could not reset `" + b.name + "` before the streamed run: " + u.error->message);
    }

    StreamsRequest request;
    request.module = module;
    request.kernel_name = kernel_.signature->launch_name;
    request.block = resolved.block;
    request.dynamic_shared_bytes = resolved.dynamic_shared_bytes;
    request.streams = st.streams;
    for (const ChunkPart& part : plan.parts) {
        StreamChunk chunk;
        chunk.stream = part.index % st.streams;
        chunk.grid = part.grid;
        for (const ChunkBuffer& cb : part.buffers) {
            if (cb.whole) continue;  // an `in` buffer of another size: on the device whole already
            const BufferId id = buffers_.at(cb.name).id;
            if (cb.direction != Direction::Out) {
                const auto& bytes = host_inputs_.at(cb.name).host.bytes;
                StreamCopy copy{id, cb.byte_offset, cb.bytes, {}};
                copy.data.assign(bytes.begin() + std::ptrdiff_t(cb.byte_offset),
                                 bytes.begin() + std::ptrdiff_t(cb.byte_offset + cb.bytes));
                chunk.h2d.push_back(std::move(copy));
            }
            if (cb.direction != Direction::In) chunk.d2h.push_back({id, cb.byte_offset, cb.bytes, {}});
        }
        auto args = kernel_args(*kernel_.signature, part.params, [&](const std::string& name) {
            BufferArg b{buffers_.at(name).id, 0};
            for (const ChunkBuffer& cb : part.buffers)
                if (cb.name == name) b.offset = cb.byte_offset;
            return b;
        });
        if (!args) return args.error();
        chunk.args = std::move(*args);
        request.chunks.push_back(std::move(chunk));
    }

    StreamsOutcome ran = launch_streams(std::move(request), {LaunchPurpose::Stream});
    if (const std::optional<LaunchFailure>& err = ran.failure) {
        into.error_line = err->line;
        return make_error(err->kind,
                          "the streamed run (" + std::to_string(st.chunks) + " chunks on " +
                              std::to_string(st.streams) + " streams): " + err->named_message(),
                          err->hint);
    }

    // The outputs from the chunks' copies, each placed where the plan says its chunk belongs; an element no
    // chunk brings back stays NaN bytes (not the ordinary launch's result).
    for (const ChunkBuffer& cb : plan.parts.front().buffers) {
        if (cb.whole || cb.direction == Direction::In) continue;
        const BufferSpec* b = kernel_.buffer(cb.name);
        HostBuffer fresh{cb.name, b->type, {}};
        fresh.bytes.assign(resolved.buffer_counts.at(cb.name) * elem_info(b->type).size, std::byte{0xFF});
        into.outputs[cb.name] = std::move(fresh);
    }
    size_t next = 0;
    for (const ChunkPart& part : plan.parts) {
        for (const ChunkBuffer& cb : part.buffers) {
            if (cb.whole || cb.direction == Direction::In) continue;
            if (next >= ran.d2h_data.size() || ran.d2h_data[next].size() != cb.bytes)
                return make_error(ErrorKind::Internal, "the streamed run returned " +
                                                           std::to_string(ran.d2h_data.size()) +
                                                           " copies, not the ones asked for");
            HostBuffer& out = into.outputs.at(cb.name);
            std::copy(ran.d2h_data[next].begin(), ran.d2h_data[next].end(),
                      out.bytes.begin() + std::ptrdiff_t(cb.byte_offset));
            ++next;
        }
    }

    StreamsReport r;
    r.streams = st.streams;
    r.chunks = int(plan.parts.size());
    r.param = st.param;
    r.elements = plan.total;
    r.ops = std::move(ran.ops);
    r.total_ms = ran.total_ms;
    r.one_stream_ms = ran.one_stream_ms;
    r.host_clock = ran.host_clock;
    r.concurrent = engine_.capabilities().concurrent_streams && !ran.host_clock;
    r.printf_output = std::move(ran.printf_output);
    r.lanes.assign(size_t(st.streams), {});
    for (size_t i = 0; i < r.ops.size(); ++i)
        if (r.ops[i].stream >= 0 && r.ops[i].stream < st.streams) r.lanes[size_t(r.ops[i].stream)].push_back(i);
    for (auto& lane : r.lanes)
        std::stable_sort(lane.begin(), lane.end(),
                         [&](size_t a, size_t b) { return r.ops[a].start_ms < r.ops[b].start_ms; });
    return r;
}

}  // namespace cp
