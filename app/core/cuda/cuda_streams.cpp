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

}  // namespace

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

    // Everything checked before anything is queued: streams, copies within their buffers, launches, arguments.
    struct Prepared {
        LaunchRequest launch;
        std::vector<std::vector<std::byte>> storage;
        std::vector<void*> params;
    };
    std::vector<Prepared> prepared(request.chunks.size());
    LaunchRequest all_args;  // every chunk's arguments, for the guard zone check afterwards
    all_args.kernel_name = request.kernel_name;
    uint64_t in_bytes = 0, out_bytes = 0;
    auto check_copy = [&](const StreamCopy& c, size_t chunk, const char* what) -> std::optional<EngineError> {
        auto it = buffers_.find(c.buffer);
        const std::string label = std::string(what) + " of chunk " + std::to_string(chunk);
        if (it == buffers_.end())
            return launch_refused(label + " refers to " + buffer_label(c.buffer) + ", which does not exist");
        if (c.offset > it->second.bytes || c.bytes > it->second.bytes - c.offset)
            return launch_refused(label + ": " + std::to_string(c.bytes) + " bytes at offset " + std::to_string(c.offset) +
                           " do not fit in " + buffer_label(c.buffer) + " of " + std::to_string(it->second.bytes) +
                           " bytes");
        return std::nullopt;
    };
    for (size_t k = 0; k < request.chunks.size(); ++k) {
        const StreamChunk& c = request.chunks[k];
        if (c.stream < 0 || c.stream >= request.streams) {
            out.error = launch_refused(subject + ": chunk " + std::to_string(k) + " names stream " + std::to_string(c.stream));
            return out;
        }
        for (const StreamCopy& copy : c.h2d) {
            if ((out.error = check_copy(copy, k, "a copy to the device"))) return out;
            if (copy.data.size() != copy.bytes) {
                out.error = launch_refused(subject + ": a copy of chunk " + std::to_string(k) + " carries " +
                                    std::to_string(copy.data.size()) + " bytes for " + std::to_string(copy.bytes));
                return out;
            }
            in_bytes += copy.bytes;
        }
        for (const StreamCopy& copy : c.d2h) {
            if ((out.error = check_copy(copy, k, "a copy from the device"))) return out;
            out_bytes += copy.bytes;
        }
        Prepared& p = prepared[k];
        p.launch.module = request.module;
        p.launch.kernel_name = request.kernel_name;
        p.launch.grid = c.grid;
        p.launch.block = request.block;
        p.launch.dynamic_shared_bytes = request.dynamic_shared_bytes;
        p.launch.args = c.args;
        const std::string chunk_subject = "kernel `" + request.kernel_name + "` (chunk " + std::to_string(k) +
                                          ", grid " + c.grid.str() + ", block " + request.block.str() + ")";
        if ((out.error = check_launch(loaded, fn, p.launch, chunk_subject))) return out;
        if ((out.error = marshal_args(loaded, fn, p.launch, p.storage, p.params))) return out;
        all_args.args.insert(all_args.args.end(), c.args.begin(), c.args.end());
    }

    // Pinned staging, untimed: a program that overlaps copies keeps its host data in page-locked memory.
    PinnedArea staged_in(d_, in_bytes), staged_out(d_, out_bytes);
    if (!staged_in.data || !staged_out.data) {
        out.error = engine_error(ErrorKind::OutOfMemory, "CUDA_ERROR_OUT_OF_MEMORY",
                                 "could not allocate " + std::to_string(in_bytes + out_bytes) +
                                     " bytes of pinned (page-locked) host memory for the streamed run",
                                 "use a smaller size");
        return out;
    }
    {
        uint64_t at = 0;
        for (const StreamChunk& c : request.chunks)
            for (const StreamCopy& copy : c.h2d) {
                if (copy.bytes) std::memcpy(staged_in.data + at, copy.data.data(), copy.bytes);
                at += copy.bytes;
            }
    }

    size_t op_count = 0;
    for (const StreamChunk& c : request.chunks) op_count += c.h2d.size() + 1 + c.d2h.size();
    StreamSet set(d_);
    CUresult r = CUDA_SUCCESS;
    for (int s = 0; s < request.streams && r == CUDA_SUCCESS; ++s) {
        CUstream stream = nullptr;
        r = d_.StreamCreate(&stream, CU_STREAM_NON_BLOCKING);
        if (r == CUDA_SUCCESS) set.streams.push_back(stream);
    }
    // Events with default flags (timing on): two per operation, the origin, and one-stream start and end.
    for (size_t e = 0; e < 2 * op_count + 3 && r == CUDA_SUCCESS; ++e) {
        CUevent event = nullptr;
        r = d_.EventCreate(&event, CU_EVENT_DEFAULT);
        if (r == CUDA_SUCCESS) set.events.push_back(event);
    }
    if (r != CUDA_SUCCESS) {
        out.error = failure(r, "creating streams and events for " + subject);
        return out;
    }
    CUevent origin = set.events[2 * op_count], one_start = set.events[2 * op_count + 1],
            one_end = set.events[2 * op_count + 2];

    std::optional<StdoutCapture> capture;
    const LoadedModule& module = modules_.at(request.module);
    if (module.can_print) capture.emplace(module.can_assert);

    // Queues every operation; `timed`: each between two events of its own (the S-stream run).
    auto enqueue = [&](bool one_stream, bool timed) -> CUresult {
        uint64_t in_at = 0, out_at = 0;
        size_t e = 0;
        CUresult q = CUDA_SUCCESS;
        auto op = [&](CUstream s, auto&& issue) {
            if (q == CUDA_SUCCESS && timed) q = d_.EventRecord(set.events[e++], s);
            if (q == CUDA_SUCCESS) q = issue();
            if (q == CUDA_SUCCESS && timed) q = d_.EventRecord(set.events[e++], s);
        };
        for (size_t k = 0; k < request.chunks.size() && q == CUDA_SUCCESS; ++k) {
            const StreamChunk& c = request.chunks[k];
            CUstream s = set.streams[one_stream ? 0 : size_t(c.stream)];
            for (const StreamCopy& copy : c.h2d) {
                const CUdeviceptr dst = buffers_.at(copy.buffer).ptr + copy.offset;
                std::byte* src = staged_in.data + in_at;
                in_at += copy.bytes;
                op(s, [&] { return d_.MemcpyHtoDAsync(dst, src, copy.bytes, s); });
            }
            Prepared& p = prepared[k];
            op(s, [&] {
                return d_.LaunchKernel(fn, c.grid.x, c.grid.y, c.grid.z, request.block.x, request.block.y,
                                       request.block.z, request.dynamic_shared_bytes, s, p.params.data(), nullptr);
            });
            for (const StreamCopy& copy : c.d2h) {
                const CUdeviceptr src = buffers_.at(copy.buffer).ptr + copy.offset;
                std::byte* dst = staged_out.data + out_at;
                out_at += copy.bytes;
                op(s, [&] { return d_.MemcpyDtoHAsync(dst, src, copy.bytes, s); });
            }
        }
        return q;
    };

    CUstream first = set.streams[0];
    // An untimed pass first (module loading, first-touch costs), then one stream timed, then S streams timed.
    r = enqueue(true, false);
    if (r == CUDA_SUCCESS) r = d_.CtxSynchronize();
    size_t printed = capture ? capture->size() : 0;
    if (r == CUDA_SUCCESS && request.time_one_stream) {
        r = d_.EventRecord(one_start, first);
        if (r == CUDA_SUCCESS) r = enqueue(true, false);
        if (r == CUDA_SUCCESS) r = d_.EventRecord(one_end, first);
        if (r == CUDA_SUCCESS) r = d_.CtxSynchronize();
        float ms = 0;
        if (r == CUDA_SUCCESS && d_.EventElapsedTime(&ms, one_start, one_end) == CUDA_SUCCESS) out.one_stream_ms = ms;
    }
    // Every stream starts after the origin event, so every time is measured from one point.
    if (r == CUDA_SUCCESS) r = d_.EventRecord(origin, first);
    for (size_t s = 1; s < set.streams.size() && r == CUDA_SUCCESS; ++s)
        r = d_.StreamWaitEvent(set.streams[s], origin, 0);
    if (r == CUDA_SUCCESS) r = enqueue(false, true);
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

    size_t e = 0;
    auto elapsed = [&](CUevent ev) {
        float ms = 0;
        return d_.EventElapsedTime(&ms, origin, ev) == CUDA_SUCCESS ? double(ms) : 0.0;
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
    uint64_t at = 0;
    for (const StreamChunk& c : request.chunks)
        for (const StreamCopy& copy : c.d2h) {
            out.d2h_data.emplace_back(staged_out.data + at, staged_out.data + at + copy.bytes);
            at += copy.bytes;
        }
    if ((out.error = check_guards(all_args, {}))) return out;
    out.ok = true;
    return out;
}

}  // namespace cp
