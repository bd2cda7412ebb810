// Serialising engine requests/responses (nlohmann JSON + a blob).
#include "core/engine/engine_wire.h"

#include <nlohmann/json.hpp>

namespace cp {

using nlohmann::json;

// ---- value types ----------------------------------------------------------------------------------------

void to_json(json& j, const Dim3& d) { j = json::array({d.x, d.y, d.z}); }
void from_json(const json& j, Dim3& d) {
    d.x = j.at(0).get<uint32_t>();
    d.y = j.at(1).get<uint32_t>();
    d.z = j.at(2).get<uint32_t>();
}

void to_json(json& j, const Diagnostic& d) {
    j = {{"file", d.file}, {"line", d.line}, {"column", d.column}, {"severity", int(d.severity)}, {"message", d.message}};
}
void from_json(const json& j, Diagnostic& d) {
    d.file = j.at("file").get<std::string>();
    d.line = j.at("line").get<int>();
    d.column = j.at("column").get<int>();
    d.severity = Severity(j.at("severity").get<int>());
    d.message = j.at("message").get<std::string>();
}

void to_json(json& j, const ResourceUsage& u) {
    j = json::array({u.registers, u.static_shared_bytes, u.local_bytes, u.spill_store_bytes, u.spill_load_bytes,
                     u.constant_bytes, u.max_threads_per_block, u.barriers});
}
void from_json(const json& j, ResourceUsage& u) {
    int* fields[] = {&u.registers,        &u.static_shared_bytes, &u.local_bytes,           &u.spill_store_bytes,
                     &u.spill_load_bytes, &u.constant_bytes,      &u.max_threads_per_block, &u.barriers};
    for (size_t i = 0; i < std::size(fields); ++i) *fields[i] = j.at(i).get<int>();
}

void to_json(json& j, const DeviceInfo& d) {
    const BackendCapabilities& c = d.caps;
    j = {{"backend", d.backend},
         {"caps", {c.launches, c.gpu, c.device_buffers, c.buffers_by_ipc, c.occupancy_api, c.event_timing, c.default_repeats,
                  c.trace_needs_instrumented_module, c.sanitizer, c.thread_order, c.concurrent_streams}},
         {"name", d.name},
         {"arch", d.arch},
         {"cc", {d.cc_major, d.cc_minor}},
         {"sm_count", d.sm_count},
         {"total_memory", d.total_memory},
         {"max_threads_per_block", d.max_threads_per_block},
         {"max_block", d.max_block},
         {"max_grid", d.max_grid},
         {"max_shared_per_block", d.max_shared_per_block},
         {"max_shared_per_block_optin", d.max_shared_per_block_optin},
         {"max_shared_per_sm", d.max_shared_per_sm},
         {"regs_per_block", d.regs_per_block},
         {"regs_per_sm", d.regs_per_sm},
         {"max_threads_per_sm", d.max_threads_per_sm},
         {"max_blocks_per_sm", d.max_blocks_per_sm},
         {"warp_size", d.warp_size},
         {"l2_bytes", d.l2_bytes},
         {"copy_bandwidth_gbps", d.copy_bandwidth_gbps},
         {"driver_version", d.driver_version},
         {"ordinal", d.ordinal},
         {"device_count", d.device_count},
         {"notes", d.notes}};
}
void from_json(const json& j, DeviceInfo& d) {
    d.backend = j.at("backend").get<std::string>();
    const json& c = j.at("caps");
    d.caps = {c.at(0).get<bool>(), c.at(1).get<bool>(), c.at(2).get<bool>(), c.at(3).get<bool>(),
              c.at(4).get<bool>(), c.at(5).get<bool>(), c.at(6).get<int>(), c.size() > 7 && c.at(7).get<bool>(),
              c.size() > 8 && c.at(8).get<bool>(), c.size() > 9 && c.at(9).get<bool>(),
              c.size() > 10 && c.at(10).get<bool>()};
    d.name = j.at("name").get<std::string>();
    d.arch = j.at("arch").get<std::string>();
    d.cc_major = j.at("cc").at(0).get<int>();
    d.cc_minor = j.at("cc").at(1).get<int>();
    d.sm_count = j.at("sm_count").get<int>();
    d.total_memory = j.at("total_memory").get<uint64_t>();
    d.max_threads_per_block = j.at("max_threads_per_block").get<int>();
    d.max_block = j.at("max_block").get<Dim3>();
    d.max_grid = j.at("max_grid").get<Dim3>();
    d.max_shared_per_block = j.at("max_shared_per_block").get<int>();
    d.max_shared_per_block_optin = j.at("max_shared_per_block_optin").get<int>();
    d.max_shared_per_sm = j.at("max_shared_per_sm").get<int>();
    d.regs_per_block = j.at("regs_per_block").get<int>();
    d.regs_per_sm = j.at("regs_per_sm").get<int>();
    d.max_threads_per_sm = j.at("max_threads_per_sm").get<int>();
    d.max_blocks_per_sm = j.at("max_blocks_per_sm").get<int>();
    d.warp_size = j.at("warp_size").get<int>();
    d.l2_bytes = j.at("l2_bytes").get<int>();
    d.copy_bandwidth_gbps = j.at("copy_bandwidth_gbps").get<double>();
    d.driver_version = j.at("driver_version").get<std::string>();
    d.ordinal = j.at("ordinal").get<int>();
    d.device_count = j.at("device_count").get<int>();
    d.notes = j.at("notes").get<std::string>();
}

void to_json(json& j, const EngineError& e) {
    j = {{"name", e.name}, {"message", e.message}, {"hint", e.hint}, {"context_was_reset", e.context_was_reset}, {"line", e.line}};
}
void from_json(const json& j, EngineError& e) {
    e.name = j.at("name").get<std::string>();
    e.message = j.at("message").get<std::string>();
    e.hint = j.at("hint").get<std::string>();
    e.context_was_reset = j.at("context_was_reset").get<bool>();
    e.line = j.value("line", 0);
}

namespace {

json error_json(const std::optional<EngineError>& e) { return e ? json(*e) : json(nullptr); }
std::optional<EngineError> error_from(const json& j) {
    const json& e = j.at("error");
    if (e.is_null()) return std::nullopt;
    return e.get<EngineError>();
}

json bytes_json(const std::vector<std::byte>& bytes) {
    json a = json::array();
    for (std::byte b : bytes) a.push_back(int(b));
    return a;
}
std::vector<std::byte> bytes_from(const json& j) {
    std::vector<std::byte> out;
    for (const auto& v : j) out.push_back(std::byte(v.get<int>()));
    return out;
}

// Names on the wire, in the order of the Request and Response variants.
constexpr const char* kTypes[] = {"info",      "compile", "allocate",  "upload", "launch",
                                  "read_back", "release", "occupancy", "streams"};

json args_json(const std::vector<KernelArg>& args) {
    json out = json::array();
    for (const auto& a : args)
        out.push_back({{"name", a.name}, {"buffer", a.buffer}, {"scalar", bytes_json(a.scalar)}, {"offset", a.offset}});
    return out;
}
std::vector<KernelArg> args_from(const json& j) {
    std::vector<KernelArg> out;
    for (const auto& a : j)
        out.push_back({a.at("name").get<std::string>(), a.at("buffer").get<BufferId>(), bytes_from(a.at("scalar")),
                       a.value("offset", uint64_t(0))});
    return out;
}

// A StreamsRequest: the chunks in the JSON, every host -> device copy's bytes one after another in the blob.
json streams_request_json(const StreamsRequest& r, std::vector<std::byte>& blob) {
    json chunks = json::array();
    for (const StreamChunk& c : r.chunks) {
        json h2d = json::array(), d2h = json::array();
        for (const StreamCopy& copy : c.h2d) {
            h2d.push_back({copy.buffer, copy.offset, copy.bytes, copy.data.size()});
            blob.insert(blob.end(), copy.data.begin(), copy.data.end());
        }
        for (const StreamCopy& copy : c.d2h) d2h.push_back({copy.buffer, copy.offset, copy.bytes});
        chunks.push_back({{"stream", c.stream}, {"grid", c.grid}, {"args", args_json(c.args)}, {"h2d", h2d}, {"d2h", d2h}});
    }
    return {{"module", r.module}, {"kernel_name", r.kernel_name}, {"block", r.block},
            {"dynamic_shared_bytes", r.dynamic_shared_bytes}, {"streams", r.streams}, {"chunks", chunks},
            {"time_one_stream", r.time_one_stream}};
}
std::optional<StreamsRequest> streams_request_from(const json& j, const std::vector<std::byte>& blob) {
    StreamsRequest r;
    r.module = j.at("module").get<ModuleId>();
    r.kernel_name = j.at("kernel_name").get<std::string>();
    r.block = j.at("block").get<Dim3>();
    r.dynamic_shared_bytes = j.at("dynamic_shared_bytes").get<uint32_t>();
    r.streams = j.at("streams").get<int>();
    r.time_one_stream = j.value("time_one_stream", true);
    size_t at = 0;
    for (const json& c : j.at("chunks")) {
        StreamChunk chunk;
        chunk.stream = c.at("stream").get<int>();
        chunk.grid = c.at("grid").get<Dim3>();
        chunk.args = args_from(c.at("args"));
        for (const json& h : c.at("h2d")) {
            StreamCopy copy{h.at(0).get<BufferId>(), h.at(1).get<uint64_t>(), h.at(2).get<uint64_t>(), {}};
            const uint64_t size = h.at(3).get<uint64_t>();
            if (size > blob.size() - at) return std::nullopt;
            copy.data.assign(blob.begin() + std::ptrdiff_t(at), blob.begin() + std::ptrdiff_t(at + size));
            at += size;
            chunk.h2d.push_back(std::move(copy));
        }
        for (const json& d : c.at("d2h"))
            chunk.d2h.push_back({d.at(0).get<BufferId>(), d.at(1).get<uint64_t>(), d.at(2).get<uint64_t>(), {}});
        r.chunks.push_back(std::move(chunk));
    }
    return r;
}

size_t type_index(const json& j) {
    const std::string t = j.at("type").get<std::string>();
    for (size_t i = 0; i < std::size(kTypes); ++i)
        if (t == kTypes[i]) return i;
    throw std::runtime_error("unknown message type " + t);
}

}  // namespace

// ---- requests -------------------------------------------------------------------------------------------

WireMessage encode_request(const Request& request) {
    WireMessage m;
    json j = {{"type", kTypes[request.index()]}};
    std::visit(
        [&](const auto& r) {
            using T = std::decay_t<decltype(r)>;
            if constexpr (std::is_same_v<T, CompileRequest>) {
                j.update({{"source", r.source}, {"path", r.path}, {"kernel_name", r.kernel_name},
                          {"also_kernels", r.also_kernels}, {"extra_options", r.extra_options}, {"load", r.load},
                          {"instrument_trace", r.instrument_trace}});
            } else if constexpr (std::is_same_v<T, AllocateRequest>) {
                j.update({{"name", r.name}, {"bytes", r.bytes}, {"element_bytes", r.element_bytes}});
            } else if constexpr (std::is_same_v<T, UploadRequest>) {
                j["buffer"] = r.buffer;
                j["repeat"] = r.repeat;
                j["pinned"] = r.pinned;
                j["offset"] = r.offset;
                m.blob = r.data;
            } else if constexpr (std::is_same_v<T, LaunchRequest>) {
                j.update({{"module", r.module}, {"kernel_name", r.kernel_name}, {"grid", r.grid}, {"block", r.block},
                          {"dynamic_shared_bytes", r.dynamic_shared_bytes}, {"args", args_json(r.args)},
                          {"timing", {r.timing.warmup, r.timing.repeats, r.timing.flush_l2}}, {"trace", r.trace}});
                if (r.thread_order)
                    j["thread_order"] = {int(r.thread_order->kind), r.thread_order->seed};
            } else if constexpr (std::is_same_v<T, ReadBackRequest>) {
                j["buffer"] = r.buffer;
                j["pinned"] = r.pinned;
            } else if constexpr (std::is_same_v<T, ReleaseRequest>) {
                j.update({{"buffers", r.buffers}, {"modules", r.modules}});
            } else if constexpr (std::is_same_v<T, OccupancyRequest>) {
                j.update({{"module", r.module}, {"kernel_name", r.kernel_name},
                          {"dynamic_shared_bytes", r.dynamic_shared_bytes}, {"block_size_limit", r.block_size_limit},
                          {"block_sizes", r.block_sizes}});
            } else if constexpr (std::is_same_v<T, StreamsRequest>) {
                j.update(streams_request_json(r, m.blob));
            }
        },
        request);
    m.json = j.dump(-1, ' ', false, json::error_handler_t::replace);
    return m;
}

std::optional<Request> decode_request(WireMessage message) {
    try {
        const json j = json::parse(message.json);
        switch (type_index(j)) {
            case 0: return InfoRequest{};
            case 1: {
                CompileRequest r;
                r.source = j.at("source").get<std::string>();
                r.path = j.at("path").get<std::string>();
                r.kernel_name = j.at("kernel_name").get<std::string>();
                r.also_kernels = j.at("also_kernels").get<std::vector<std::string>>();
                r.extra_options = j.at("extra_options").get<std::vector<std::string>>();
                r.load = j.at("load").get<bool>();
                r.instrument_trace = j.value("instrument_trace", false);
                return r;
            }
            case 2: return AllocateRequest{j.at("name").get<std::string>(), j.at("bytes").get<uint64_t>(),
                                           j.value("element_bytes", uint32_t(1))};
            case 3: return UploadRequest{j.at("buffer").get<BufferId>(), std::move(message.blob), j.value("repeat", false),
                                         j.value("pinned", false), j.value("offset", uint64_t(0))};
            case 4: {
                LaunchRequest r;
                r.module = j.at("module").get<ModuleId>();
                r.kernel_name = j.at("kernel_name").get<std::string>();
                r.grid = j.at("grid").get<Dim3>();
                r.block = j.at("block").get<Dim3>();
                r.dynamic_shared_bytes = j.at("dynamic_shared_bytes").get<uint32_t>();
                r.args = args_from(j.at("args"));
                const json& t = j.at("timing");
                r.timing = {t.at(0).get<int>(), t.at(1).get<int>(), t.at(2).get<bool>()};
                r.trace = j.value("trace", false);
                if (j.contains("thread_order")) {
                    const json& o = j.at("thread_order");
                    const int kind = o.at(0).get<int>();
                    if (kind < 0 || kind > 2) return std::nullopt;
                    r.thread_order = ThreadOrderChoice{ThreadOrderChoice::Kind(kind), o.at(1).get<uint64_t>()};
                }
                return r;
            }
            case 5: return ReadBackRequest{j.at("buffer").get<BufferId>(), j.value("pinned", false)};
            case 6:
                return ReleaseRequest{j.at("buffers").get<std::vector<BufferId>>(),
                                      j.at("modules").get<std::vector<ModuleId>>()};
            case 8: {
                auto r = streams_request_from(j, message.blob);
                if (!r) return std::nullopt;
                return std::move(*r);
            }
            default:
                return OccupancyRequest{j.at("module").get<ModuleId>(), j.at("kernel_name").get<std::string>(),
                                        j.at("dynamic_shared_bytes").get<uint32_t>(),
                                        j.at("block_size_limit").get<uint32_t>(),
                                        j.value("block_sizes", std::vector<int>{})};
        }
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// ---- responses ------------------------------------------------------------------------------------------

WireMessage encode_response(const Response& response) {
    WireMessage m;
    json j = {{"type", kTypes[response.index()]}};
    std::visit(
        [&](const auto& r) {
            using T = std::decay_t<decltype(r)>;
            if constexpr (std::is_same_v<T, InfoResult>) {
                j["device"] = r.device;
            } else if constexpr (std::is_same_v<T, CompileResult>) {
                j.update({{"ok", r.ok}, {"diagnostics", r.diagnostics}, {"log", r.log}, {"options", r.options},
                          {"usage", r.usage}, {"cache_hit", r.cache_hit}, {"compile_ms", r.compile_ms},
                          {"module", r.module}, {"error", error_json(r.error)}, {"also_usage", r.also_usage}});
            } else if constexpr (std::is_same_v<T, AllocateResult>) {
                j.update({{"buffer", r.buffer}, {"device_address", r.device_address}, {"ipc_handle", r.ipc_handle},
                          {"ipc_offset", r.ipc_offset}, {"error", error_json(r.error)}, {"elapsed_ms", r.elapsed_ms}});
            } else if constexpr (std::is_same_v<T, UploadResult>) {
                j["error"] = error_json(r.error);
                j["elapsed_ms"] = r.elapsed_ms;
            } else if constexpr (std::is_same_v<T, LaunchResult>) {
                j.update({{"ok", r.ok}, {"samples_ms", r.timing.samples_ms}, {"cpu_time", r.timing.cpu_time},
                          {"printf_output", r.printf_output}, {"error", error_json(r.error)},
                          {"trace_unit", r.trace_unit}});
                // The trace travels in the JSON itself, 4 numbers a block (block, unit, start, end), so that a
                // carrier that forwards only the JSON part (the CPU worker's protocol) keeps it.
                json records = json::array();
                for (const BlockTrace& b : r.trace) {
                    records.push_back(b.block);
                    records.push_back(b.unit);
                    records.push_back(b.start_ns);
                    records.push_back(b.end_ns);
                }
                j["trace"] = std::move(records);
            } else if constexpr (std::is_same_v<T, ReadBackResult>) {
                j["error"] = error_json(r.error);
                j["elapsed_ms"] = r.elapsed_ms;
                m.blob = r.data;
            } else if constexpr (std::is_same_v<T, OccupancyResult>) {
                j.update({{"min_grid_size", r.min_grid_size}, {"block_size", r.block_size},
                          {"active_blocks_per_sm", r.active_blocks_per_sm}, {"occupancy", r.occupancy},
                          {"method", r.method}, {"error", error_json(r.error)}, {"active_blocks", r.active_blocks}});
            } else if constexpr (std::is_same_v<T, StreamsResult>) {
                json ops = json::array(), sizes = json::array();
                for (const StreamOp& op : r.ops)
                    ops.push_back({op.stream, op.chunk, int(op.kind), op.start_ms, op.end_ms, op.bytes});
                for (const auto& d : r.d2h_data) {
                    sizes.push_back(d.size());
                    m.blob.insert(m.blob.end(), d.begin(), d.end());
                }
                j.update({{"ok", r.ok}, {"ops", ops}, {"total_ms", r.total_ms}, {"one_stream_ms", r.one_stream_ms},
                          {"host_clock", r.host_clock}, {"d2h_sizes", sizes}, {"printf_output", r.printf_output},
                          {"error", error_json(r.error)}});
            }
        },
        response);
    m.json = j.dump(-1, ' ', false, json::error_handler_t::replace);
    return m;
}

std::optional<Response> decode_response(WireMessage message) {
    try {
        const json j = json::parse(message.json);
        switch (type_index(j)) {
            case 0: return InfoResult{j.at("device").get<DeviceInfo>()};
            case 1: {
                CompileResult r;
                r.ok = j.at("ok").get<bool>();
                r.diagnostics = j.at("diagnostics").get<std::vector<Diagnostic>>();
                r.log = j.at("log").get<std::string>();
                r.options = j.at("options").get<std::vector<std::string>>();
                r.usage = j.at("usage").get<ResourceUsage>();
                r.cache_hit = j.at("cache_hit").get<bool>();
                r.compile_ms = j.at("compile_ms").get<double>();
                r.module = j.at("module").get<ModuleId>();
                r.error = error_from(j);
                r.also_usage = j.at("also_usage").get<std::map<std::string, ResourceUsage>>();
                return r;
            }
            case 2: return AllocateResult{j.at("buffer").get<BufferId>(), j.at("device_address").get<uint64_t>(),
                                          error_from(j), j.value("ipc_handle", std::vector<uint8_t>{}),
                                          j.value("ipc_offset", uint64_t(0)), j.value("elapsed_ms", 0.0)};
            case 3: return UploadResult{error_from(j), j.value("elapsed_ms", 0.0)};
            case 4: {
                LaunchResult r;
                r.ok = j.at("ok").get<bool>();
                r.timing = TimingStats::from_samples(j.at("samples_ms").get<std::vector<double>>(),
                                                     j.at("cpu_time").get<bool>());
                r.printf_output = j.at("printf_output").get<std::string>();
                r.error = error_from(j);
                r.trace_unit = j.value("trace_unit", std::string());
                if (auto t = j.find("trace"); t != j.end() && t->is_array()) {
                    const auto& a = *t;
                    for (size_t i = 0; i + 3 < a.size(); i += 4)
                        r.trace.push_back({a[i].get<uint64_t>(), a[i + 1].get<uint32_t>(), a[i + 2].get<uint64_t>(),
                                           a[i + 3].get<uint64_t>()});
                }
                return r;
            }
            case 5: return ReadBackResult{std::move(message.blob), error_from(j), j.value("elapsed_ms", 0.0)};
            case 6: return ReleaseResult{};
            case 8: {
                StreamsResult r;
                r.ok = j.at("ok").get<bool>();
                for (const json& op : j.at("ops")) {
                    const int kind = op.at(2).get<int>();
                    if (kind < 0 || kind > 2) return std::nullopt;
                    r.ops.push_back({op.at(0).get<int>(), op.at(1).get<int>(), StreamOpKind(kind), op.at(3).get<double>(),
                                     op.at(4).get<double>(), op.at(5).get<uint64_t>()});
                }
                r.total_ms = j.at("total_ms").get<double>();
                r.one_stream_ms = j.at("one_stream_ms").get<double>();
                r.host_clock = j.at("host_clock").get<bool>();
                size_t at = 0;
                for (const json& size : j.at("d2h_sizes")) {
                    const uint64_t n = size.get<uint64_t>();
                    if (n > message.blob.size() - at) return std::nullopt;
                    r.d2h_data.emplace_back(message.blob.begin() + std::ptrdiff_t(at),
                                            message.blob.begin() + std::ptrdiff_t(at + n));
                    at += n;
                }
                r.printf_output = j.at("printf_output").get<std::string>();
                r.error = error_from(j);
                return r;
            }
            default: {
                OccupancyResult r;
                r.min_grid_size = j.at("min_grid_size").get<int>();
                r.block_size = j.at("block_size").get<int>();
                r.active_blocks_per_sm = j.at("active_blocks_per_sm").get<int>();
                r.occupancy = j.at("occupancy").get<double>();
                r.method = j.at("method").get<std::string>();
                r.error = error_from(j);
                r.active_blocks = j.value("active_blocks", std::vector<int>{});
                return r;
            }
        }
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

}  // namespace cp
