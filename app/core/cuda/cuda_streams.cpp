// CUDA backend, part 3: one launch split into chunks on several streams (StreamsRequest). Each chunk's copies in,
// kernel and copies out are queued on its stream (cuMemcpyHtoDAsync, cuLaunchKernel, cuMemcpyDtoHAsync) from
// pinned host memory, each operation between two events, so that the timeline shows where the copy engines and
// the SMs overlapped. The same operations on one stream give the total to compare with.
#include "core/cuda/cuda_backend.h"

#include "core/cuda/stdout_capture.h"

#include <algorithm>
#include <cstring>

namespace cp {

namespace {

// Page-locked host memory for the whole request (what cudaMallocHost gives a program); staging into it is not timed.
struct PinnedArea {
    const CudaDriver& d;
    std::byte* data = nullptr;
    PinnedArea(const CudaDriver& driver, size_t bytes) : d(driver) {
        void* p = nullptr;
        if (d.MemAllocHost && d.MemFreeHost && d.MemAllocHost(&p, std::max<size_t>(bytes, 1)) == CUDA_SUCCESS)
            data = static_cast<std::byte*>(p);
    }
    ~PinnedArea() {
        if (data) d.MemFreeHost(data);
    }
    PinnedArea(const PinnedArea&) = delete;
    PinnedArea& operator=(const PinnedArea&) = delete;
};

// The streams and events of one request, destroyed with it.
struct StreamSet {
    const CudaDriver& d;
    std::vector<CUstream> streams;
    std::vector<CUevent> events;
    explicit StreamSet(const CudaDriver& driver) : d(driver) {}
    ~StreamSet() {
        for (CUevent e : events) d.EventDestroy(e);
        for (CUstream s : streams) d.StreamDestroy(s);
    }
    StreamSet(const StreamSet&) = delete;
    StreamSet& operator=(const StreamSet&) = delete;
};

// The host side of the copies: every chunk's inputs staged (untimed) into one pinned area, the outputs' area.
struct Staging {
    PinnedArea in, out;
    Staging(const CudaDriver& d, uint64_t in_bytes, uint64_t out_bytes) : in(d, in_bytes), out(d, out_bytes) {}
    bool ok() const { return in.data && out.data; }
    void stage_inputs(const StreamsRequest& request) {
        uint64_t at = 0;
        for (const StreamChunk& c : request.chunks)
            for (const StreamCopy& copy : c.h2d) {
                if (copy.bytes) std::memcpy(in.data + at, copy.data.data(), copy.bytes);
                at += copy.bytes;
            }
    }
    // Each copy out's bytes, in the request's order.
    std::vector<std::vector<std::byte>> outputs(const StreamsRequest& request) const {
        std::vector<std::vector<std::byte>> data;
        uint64_t at = 0;
        for (const StreamChunk& c : request.chunks)
            for (const StreamCopy& copy : c.d2h) {
                data.emplace_back(out.data + at, out.data + at + copy.bytes);
                at += copy.bytes;
            }
        return data;
    }
};

// The request's streams, and events with default flags (timing on): two per operation, then the origin and the
// one-stream start and end.
CUresult make_streams(const CudaDriver& d, const StreamsRequest& request, StreamSet& set) {
    size_t op_count = 0;
    for (const StreamChunk& c : request.chunks) op_count += c.h2d.size() + 1 + c.d2h.size();
    CUresult r = CUDA_SUCCESS;
    for (int s = 0; s < request.streams && r == CUDA_SUCCESS; ++s) {
        CUstream stream = nullptr;
        r = d.StreamCreate(&stream, CU_STREAM_NON_BLOCKING);
        if (r == CUDA_SUCCESS) set.streams.push_back(stream);
    }
    for (size_t e = 0; e < 2 * op_count + 3 && r == CUDA_SUCCESS; ++e) {
        CUevent event = nullptr;
        r = d.EventCreate(&event, CU_EVENT_DEFAULT);
        if (r == CUDA_SUCCESS) set.events.push_back(event);
    }
    return r;
}

// The timeline from the S-stream pass's events: each operation's start and end from the origin, in the order
// they were queued.
void read_timeline(const CudaDriver& d, const StreamsRequest& request, const StreamSet& set, CUevent origin,
                   StreamsResult& out) {
    size_t e = 0;
    auto elapsed = [&](CUevent ev) {
        float ms = 0;
        return d.EventElapsedTime(&ms, origin, ev) == CUDA_SUCCESS ? double(ms) : 0.0;
    };
    for (size_t k = 0; k < request.chunks.size(); ++k) {
        const StreamChunk& c = request.chunks[k];
        auto record = [&](StreamOpKind kind, uint64_t bytes) {
            StreamOp op;
            op.stream = c.stream;
            op.chunk = int(k);
            op.kind = kind;
            op.bytes = bytes;
            op.start_ms = elapsed(set.events[e++]);
            op.end_ms = elapsed(set.events[e++]);
            out.total_ms = std::max(out.total_ms, op.end_ms);
            out.ops.push_back(op);
        };
        for (const StreamCopy& copy : c.h2d) record(StreamOpKind::H2D, copy.bytes);
        record(StreamOpKind::Kernel, 0);
        for (const StreamCopy& copy : c.d2h) record(StreamOpKind::D2H, copy.bytes);
    }
}

}  // namespace

std::optional<EngineError> CudaBackend::plan_streams(const StreamsRequest& request, const std::string& subject,
                                                     CUfunction fn, LoadedModule& loaded, CudaStreamsPlan& plan) {
    plan.chunks.resize(request.chunks.size());
    plan.all_args.kernel_name = request.kernel_name;
    // A copy's place on the device, or why it has none.
    auto place = [&](const StreamCopy& c, size_t chunk, const char* what,
                     std::vector<CUdeviceptr>& to) -> std::optional<EngineError> {
        auto it = buffers_.find(c.buffer);
        const std::string label = std::string(what) + " of chunk " + std::to_string(chunk);
        if (it == buffers_.end())
            return launch_refused(label + " refers to " + buffer_label(c.buffer) + ", which does not exist");
        if (c.offset > it->second.bytes || c.bytes > it->second.bytes - c.offset)
            return launch_refused(label + ": " + std::to_string(c.bytes) + " bytes at offset " + std::to_string(c.offset) +
                           " do not fit in " + buffer_label(c.buffer) + " of " + std::to_string(it->second.bytes) +
                           " bytes");
        to.push_back(it->second.ptr + c.offset);
        return std::nullopt;
    };
    for (size_t k = 0; k < request.chunks.size(); ++k) {
        const StreamChunk& c = request.chunks[k];
        CudaStreamsPlan::Chunk& p = plan.chunks[k];
        if (c.stream < 0 || c.stream >= request.streams)
            return launch_refused(subject + ": chunk " + std::to_string(k) + " names stream " + std::to_string(c.stream));
        for (const StreamCopy& copy : c.h2d) {
            if (auto refused = place(copy, k, "a copy to the device", p.h2d_to)) return refused;
            if (copy.data.size() != copy.bytes)
                return launch_refused(subject + ": a copy of chunk " + std::to_string(k) + " carries " +
                                      std::to_string(copy.data.size()) + " bytes for " + std::to_string(copy.bytes));
            plan.in_bytes += copy.bytes;
        }
        for (const StreamCopy& copy : c.d2h) {
            if (auto refused = place(copy, k, "a copy from the device", p.d2h_from)) return refused;
            plan.out_bytes += copy.bytes;
        }
        p.launch.module = request.module;
        p.launch.kernel_name = request.kernel_name;
        p.launch.grid = c.grid;
        p.launch.block = request.block;
        p.launch.dynamic_shared_bytes = request.dynamic_shared_bytes;
        p.launch.args = c.args;
        const std::string chunk_subject = "kernel `" + request.kernel_name + "` (chunk " + std::to_string(k) +
                                          ", grid " + c.grid.str() + ", block " + request.block.str() + ")";
        if (auto refused = check_launch(loaded, fn, p.launch, chunk_subject)) return refused;
        if (auto refused = marshal_args(loaded, fn, p.launch, p.storage, p.params)) return refused;
        plan.all_args.args.insert(plan.all_args.args.end(), c.args.begin(), c.args.end());
    }
    return std::nullopt;
}

namespace {

// Queues every operation of the plan; `one_stream`: all on the first stream; `timed`: each between two events of
// its own (the S-stream pass).
CUresult enqueue(const CudaDriver& d, const StreamsRequest& request, CudaStreamsPlan& plan, CUfunction fn,
                 const StreamSet& set, const Staging& staging, bool one_stream, bool timed) {
    uint64_t in_at = 0, out_at = 0;
    size_t e = 0;
    CUresult q = CUDA_SUCCESS;
    auto op = [&](CUstream s, auto&& issue) {
        if (q == CUDA_SUCCESS && timed) q = d.EventRecord(set.events[e++], s);
        if (q == CUDA_SUCCESS) q = issue();
        if (q == CUDA_SUCCESS && timed) q = d.EventRecord(set.events[e++], s);
    };
    for (size_t k = 0; k < request.chunks.size() && q == CUDA_SUCCESS; ++k) {
        const StreamChunk& c = request.chunks[k];
        CudaStreamsPlan::Chunk& p = plan.chunks[k];
        CUstream s = set.streams[one_stream ? 0 : size_t(c.stream)];
        for (size_t i = 0; i < c.h2d.size(); ++i) {
            std::byte* src = staging.in.data + in_at;
            in_at += c.h2d[i].bytes;
            op(s, [&] { return d.MemcpyHtoDAsync(p.h2d_to[i], src, c.h2d[i].bytes, s); });
        }
        op(s, [&] {
            return d.LaunchKernel(fn, c.grid.x, c.grid.y, c.grid.z, request.block.x, request.block.y, request.block.z,
                                  request.dynamic_shared_bytes, s, p.params.data(), nullptr);
        });
        for (size_t i = 0; i < c.d2h.size(); ++i) {
            std::byte* dst = staging.out.data + out_at;
            out_at += c.d2h[i].bytes;
            op(s, [&] { return d.MemcpyDtoHAsync(dst, p.d2h_from[i], c.d2h[i].bytes, s); });
        }
    }
    return q;
}

}  // namespace

// Checked and planned whole before anything is queued; then an untimed pass (module loading, first-touch costs),
// one stream timed, and the S streams timed from one origin event.
StreamsResult CudaBackend::streams(const StreamsRequest& request) {
    StreamsResult out;
    if ((out.error = bind())) return out;
    if (!d_.StreamCreate || !d_.StreamDestroy || !d_.StreamSynchronize || !d_.StreamWaitEvent || !d_.MemcpyHtoDAsync ||
        !d_.MemcpyDtoHAsync) {
        out.error = engine_error(ErrorKind::Unsupported, "not supported",
                                 "this NVIDIA driver lacks the stream functions a streamed run needs",
                                 "update the NVIDIA driver");
        return out;
    }
    const std::string subject = "kernel `" + request.kernel_name + "` (" + std::to_string(request.chunks.size()) +
                                " chunks on " + std::to_string(request.streams) + " streams)";
    if (request.streams < 1 || request.streams > 64 || request.chunks.empty()) {
        out.error = launch_refused(subject + ": a streamed run needs 1 to 64 streams and at least one chunk");
        return out;
    }
    CUfunction fn = kernel_function(request.module, request.kernel_name, subject, out.error);
    if (!fn) return out;
    LoadedModule& loaded = modules_.at(request.module);  // found by kernel_function above
    CudaStreamsPlan plan;
    if ((out.error = plan_streams(request, subject, fn, loaded, plan))) return out;

    // Pinned staging, untimed: a program that overlaps copies keeps its host data in page-locked memory.
    Staging staging(d_, plan.in_bytes, plan.out_bytes);
    if (!staging.ok()) {
        out.error = engine_error(ErrorKind::OutOfMemory, "CUDA_ERROR_OUT_OF_MEMORY",
                                 "could not allocate " + std::to_string(plan.in_bytes + plan.out_bytes) +
                                     " bytes of pinned (page-locked) host memory for the streamed run",
                                 "use a smaller size");
        return out;
    }
    staging.stage_inputs(request);
    StreamSet set(d_);
    CUresult r = make_streams(d_, request, set);
    if (r != CUDA_SUCCESS) {
        out.error = failure(r, "creating streams and events for " + subject);
        return out;
    }
    const size_t n = set.events.size();
    CUevent origin = set.events[n - 3], one_start = set.events[n - 2], one_end = set.events[n - 1];

    std::optional<StdoutCapture> capture;
    if (loaded.can_print) capture.emplace(loaded.can_assert);
    CUstream first = set.streams[0];
    r = enqueue(d_, request, plan, fn, set, staging, true, false);
    if (r == CUDA_SUCCESS) r = d_.CtxSynchronize();
    size_t printed = capture ? capture->size() : 0;
    if (r == CUDA_SUCCESS && request.time_one_stream) {
        r = d_.EventRecord(one_start, first);
        if (r == CUDA_SUCCESS) r = enqueue(d_, request, plan, fn, set, staging, true, false);
        if (r == CUDA_SUCCESS) r = d_.EventRecord(one_end, first);
        if (r == CUDA_SUCCESS) r = d_.CtxSynchronize();
        float ms = 0;
        if (r == CUDA_SUCCESS && d_.EventElapsedTime(&ms, one_start, one_end) == CUDA_SUCCESS) out.one_stream_ms = ms;
    }
    // Every stream starts after the origin event, so every time is measured from one point.
    if (r == CUDA_SUCCESS) r = d_.EventRecord(origin, first);
    for (size_t s = 1; s < set.streams.size() && r == CUDA_SUCCESS; ++s)
        r = d_.StreamWaitEvent(set.streams[s], origin, 0);
    if (r == CUDA_SUCCESS) r = enqueue(d_, request, plan, fn, set, staging, false, true);
    if (r == CUDA_SUCCESS) r = d_.CtxSynchronize();
    if (capture) {
        std::string text = capture->finish(kMaxPrintfBytes);
        text.resize(std::min(text.size(), printed));  // every pass prints the same: the first one's output
        out.printf_output = std::move(text);
    }
    if (r != CUDA_SUCCESS) {
        out.error = failure(r, subject);
        return out;
    }
    read_timeline(d_, request, set, origin, out);
    out.d2h_data = staging.outputs(request);
    if ((out.error = check_guards(plan.all_args, {}))) return out;
    out.ok = true;
    return out;
}

}  // namespace cp
