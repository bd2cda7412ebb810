// Serialising engine requests/responses (nlohmann JSON + a blob), type by type: each message type has a
// WireTag (its name), a to_wire and a from_wire; the encoder visits the variant and the decoder's table is
// built from the variant's alternatives, so a type that lacks one of the three is a compile error.
//
// Sections: value types · message types · the tables · requests and responses · the greeting
#include "core/engine/engine_wire.h"

#include "core/engine/device_info_json.h"

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

// DeviceInfo in the one form `info --json` also prints (device_info_json.h).
void to_json(json& j, const DeviceInfo& d) { j = device_info_to_json(d); }
void from_json(const json& j, DeviceInfo& d) { d = device_info_from_json(j); }

// "thread" and "block" are optional both ways (absent when unknown; an older peer ignores them). site_at stays
// in the backend that placed the site (EngineError::site_at).
void to_json(json& j, const EngineError& e) {
    j = {{"name", e.name}, {"message", e.message},
         {"hint", e.hint}, {"context_was_reset", e.context_was_reset},
         {"line", e.line}, {"kind", error_kind_name(e.kind)}};
    if (e.thread) j["thread"] = *e.thread;
    if (e.block) j["block"] = *e.block;
}
void from_json(const json& j, EngineError& e) {
    e.name = j.at("name").get<std::string>();
    e.message = j.at("message").get<std::string>();
    e.hint = j.at("hint").get<std::string>();
    e.context_was_reset = j.at("context_was_reset").get<bool>();
    e.line = j.at("line").get<int>();
    const std::string kind = j.at("kind").get<std::string>();
    const std::optional<ErrorKind> k = error_kind_from_name(kind);
    if (!k) throw std::runtime_error("unknown error kind `" + kind + "`");
    e.kind = *k;
    if (j.contains("thread")) e.thread = j.at("thread").get<Dim3>();
    if (j.contains("block")) e.block = j.at("block").get<Dim3>();
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
                       a.at("offset").get<uint64_t>()});
    return out;
}

[[noreturn]] void malformed(const std::string& what) {
    throw std::runtime_error(what);
}

// ---- message types --------------------------------------------------------------------------------------
// Per type: its name (WireTag), to_wire (fields into the JSON, bulk bytes into the blob) and from_wire (the
// reverse; throws on a malformed message). There is deliberately no generic fallback for any of the three.

template <class T>
struct WireTag;  // undefined: a message type without a name does not compile
template <class T>
struct Type {};  // selects from_wire's overload by the type it makes

#define CP_WIRE_TAG(T, NAME)                           \
    template <>                                        \
    struct WireTag<T> {                                \
        static constexpr std::string_view name = NAME; \
    }

CP_WIRE_TAG(InfoRequest, "info");
CP_WIRE_TAG(CompileRequest, "compile");
CP_WIRE_TAG(AllocateRequest, "allocate");
CP_WIRE_TAG(UploadRequest, "upload");
CP_WIRE_TAG(LaunchRequest, "launch");
CP_WIRE_TAG(ReadBackRequest, "read_back");
CP_WIRE_TAG(ReleaseRequest, "release");
CP_WIRE_TAG(OccupancyRequest, "occupancy");
CP_WIRE_TAG(StreamsRequest, "streams");
CP_WIRE_TAG(InfoResult, "info");
CP_WIRE_TAG(CompileResult, "compile");
CP_WIRE_TAG(AllocateResult, "allocate");
CP_WIRE_TAG(UploadResult, "upload");
CP_WIRE_TAG(LaunchResult, "launch");
CP_WIRE_TAG(ReadBackResult, "read_back");
CP_WIRE_TAG(ReleaseResult, "release");
CP_WIRE_TAG(OccupancyResult, "occupancy");
CP_WIRE_TAG(StreamsResult, "streams");
#undef CP_WIRE_TAG

using Blob = std::vector<std::byte>;

// -- requests

void to_wire(const InfoRequest&, json&, Blob&) {}
InfoRequest from_wire(Type<InfoRequest>, const json&, Blob&) {
    return {};
}

void to_wire(const CompileRequest& r, json& j, Blob&) {
    j.update({{"source", r.source},
              {"path", r.path},
              {"kernel_name", r.kernel_name},
              {"extra_options", r.extra_options},
              {"load", r.load},
              {"instrument_trace", r.instrument_trace},
              {"instrument_memory", r.instrument_memory},
              {"instrument_debug", r.instrument_debug},
              {"also_kernels", r.also_kernels},
              {"include_dirs", r.include_dirs}});
}
CompileRequest from_wire(Type<CompileRequest>, const json& j, Blob&) {
    CompileRequest r;
    r.source = j.at("source").get<std::string>();
    r.path = j.at("path").get<std::string>();
    r.kernel_name = j.at("kernel_name").get<std::string>();
    r.extra_options = j.at("extra_options").get<std::vector<std::string>>();
    r.load = j.at("load").get<bool>();
    r.instrument_trace = j.at("instrument_trace").get<bool>();
    r.instrument_memory = j.at("instrument_memory").get<bool>();
    r.instrument_debug = j.value("instrument_debug", false);
    r.also_kernels = j.at("also_kernels").get<std::vector<std::string>>();
    if (j.contains("include_dirs")) r.include_dirs = j.at("include_dirs").get<std::vector<std::string>>();
    return r;
}

void to_wire(const AllocateRequest& r, json& j, Blob&) {
    j.update({{"name", r.name}, {"bytes", r.bytes}, {"element_bytes", r.element_bytes}});
}
AllocateRequest from_wire(Type<AllocateRequest>, const json& j, Blob&) {
    return AllocateRequest{j.at("name").get<std::string>(), j.at("bytes").get<uint64_t>(),
                           j.at("element_bytes").get<uint32_t>()};
}

void to_wire(const UploadRequest& r, json& j, Blob& blob) {
    j.update({{"buffer", r.buffer}, {"repeat", r.repeat}, {"pinned", r.pinned}, {"offset", r.offset}});
    blob = r.data;
}
UploadRequest from_wire(Type<UploadRequest>, const json& j, Blob& blob) {
    return UploadRequest{j.at("buffer").get<BufferId>(), std::move(blob), j.at("repeat").get<bool>(),
                         j.at("pinned").get<bool>(), j.at("offset").get<uint64_t>()};
}

void to_wire(const LaunchRequest& r, json& j, Blob&) {
    j.update({{"module", r.module},
              {"kernel_name", r.kernel_name},
              {"grid", r.grid},
              {"block", r.block},
              {"dynamic_shared_bytes", r.dynamic_shared_bytes},
              {"args", args_json(r.args)},
              {"timing", {r.timing.warmup, r.timing.repeats, r.timing.flush_l2}},
              {"trace", r.trace},
              {"record_memory", r.record_memory}});
    json warps = json::array();  // 2 numbers a warp: block, warp
    for (const WarpId& w : r.memory_warps) {
        warps.push_back(w.block);
        warps.push_back(w.warp);
    }
    j["memory_warps"] = std::move(warps);
    j["thread_order"] = r.thread_order ? json{int(r.thread_order->kind), r.thread_order->seed} : json(nullptr);
    j["debug_block"] = r.debug_block ? json(*r.debug_block) : json(nullptr);
    j["debug_warp"] = r.debug_warp;
}
LaunchRequest from_wire(Type<LaunchRequest>, const json& j, Blob&) {
    LaunchRequest r;
    r.module = j.at("module").get<ModuleId>();
    r.kernel_name = j.at("kernel_name").get<std::string>();
    r.grid = j.at("grid").get<Dim3>();
    r.block = j.at("block").get<Dim3>();
    r.dynamic_shared_bytes = j.at("dynamic_shared_bytes").get<uint32_t>();
    r.args = args_from(j.at("args"));
    const json& t = j.at("timing");
    r.timing = {t.at(0).get<int>(), t.at(1).get<int>(), t.at(2).get<bool>()};
    r.trace = j.at("trace").get<bool>();
    r.record_memory = j.at("record_memory").get<bool>();
    const json& w = j.at("memory_warps");
    if (w.size() % 2 != 0) malformed("memory warps of " + std::to_string(w.size()) + " numbers (2 a warp)");
    for (size_t i = 0; i + 1 < w.size(); i += 2) r.memory_warps.push_back({w[i].get<uint64_t>(), w[i + 1].get<uint32_t>()});
    if (const json& o = j.at("thread_order"); !o.is_null()) {
        const int kind = o.at(0).get<int>();
        if (kind < 0 || kind > 2) malformed("thread order " + std::to_string(kind) + " is not one this build knows");
        r.thread_order = ThreadOrderChoice{ThreadOrderChoice::Kind(kind), o.at(1).get<uint64_t>()};
    }
    if (j.contains("debug_block") && !j.at("debug_block").is_null()) r.debug_block = j.at("debug_block").get<uint64_t>();
    if (j.contains("debug_warp")) r.debug_warp = j.at("debug_warp").get<int32_t>();
    if (r.debug_warp < -1) malformed("debug warp " + std::to_string(r.debug_warp));
    return r;
}

// The preview is optional on the wire in both directions (absent: every element), so a worker of a build before
// previews answers with the whole buffer and one after them reads an older app's request: no protocol bump.
void to_wire(const ReadBackRequest& r, json& j, Blob&) {
    j.update({{"buffer", r.buffer}, {"pinned", r.pinned}});
    if (const auto& p = r.preview)
        j["preview"] = {p->width, p->height, p->components, p->is_float, p->max_width, p->max_height};
}
ReadBackRequest from_wire(Type<ReadBackRequest>, const json& j, Blob&) {
    ReadBackRequest r{j.at("buffer").get<BufferId>(), j.at("pinned").get<bool>()};
    if (const auto p = j.find("preview"); p != j.end())
        r.preview = ReadBackRequest::Preview{p->at(0).get<uint32_t>(), p->at(1).get<uint32_t>(),
                                             p->at(2).get<uint32_t>(), p->at(3).get<bool>(),
                                             p->at(4).get<uint32_t>(), p->at(5).get<uint32_t>()};
    return r;
}

void to_wire(const ReleaseRequest& r, json& j, Blob&) {
    j.update({{"buffers", r.buffers}, {"modules", r.modules}});
}
ReleaseRequest from_wire(Type<ReleaseRequest>, const json& j, Blob&) {
    return ReleaseRequest{j.at("buffers").get<std::vector<BufferId>>(), j.at("modules").get<std::vector<ModuleId>>()};
}

void to_wire(const OccupancyRequest& r, json& j, Blob&) {
    j.update({{"module", r.module},
              {"kernel_name", r.kernel_name},
              {"dynamic_shared_bytes", r.dynamic_shared_bytes},
              {"block_size_limit", r.block_size_limit},
              {"block_sizes", r.block_sizes}});
}
OccupancyRequest from_wire(Type<OccupancyRequest>, const json& j, Blob&) {
    return OccupancyRequest{j.at("module").get<ModuleId>(), j.at("kernel_name").get<std::string>(),
                            j.at("dynamic_shared_bytes").get<uint32_t>(), j.at("block_size_limit").get<uint32_t>(),
                            j.at("block_sizes").get<std::vector<int>>()};
}

// The chunks in the JSON, every host -> device copy's bytes one after another in the blob.
void to_wire(const StreamsRequest& r, json& j, Blob& blob) {
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
    j.update({{"module", r.module},
              {"kernel_name", r.kernel_name},
              {"block", r.block},
              {"dynamic_shared_bytes", r.dynamic_shared_bytes},
              {"streams", r.streams},
              {"chunks", chunks},
              {"time_one_stream", r.time_one_stream}});
}
StreamsRequest from_wire(Type<StreamsRequest>, const json& j, Blob& blob) {
    StreamsRequest r;
    r.module = j.at("module").get<ModuleId>();
    r.kernel_name = j.at("kernel_name").get<std::string>();
    r.block = j.at("block").get<Dim3>();
    r.dynamic_shared_bytes = j.at("dynamic_shared_bytes").get<uint32_t>();
    r.streams = j.at("streams").get<int>();
    r.time_one_stream = j.at("time_one_stream").get<bool>();
    size_t at = 0;
    for (const json& c : j.at("chunks")) {
        StreamChunk chunk;
        chunk.stream = c.at("stream").get<int>();
        chunk.grid = c.at("grid").get<Dim3>();
        chunk.args = args_from(c.at("args"));
        for (const json& h : c.at("h2d")) {
            StreamCopy copy{h.at(0).get<BufferId>(), h.at(1).get<uint64_t>(), h.at(2).get<uint64_t>(), {}};
            const uint64_t size = h.at(3).get<uint64_t>();
            if (size > blob.size() - at) malformed("a copy's bytes run past the end of the message's data");
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

// -- responses

void to_wire(const InfoResult& r, json& j, Blob&) {
    j["device"] = r.device;
}
InfoResult from_wire(Type<InfoResult>, const json& j, Blob&) {
    return InfoResult{j.at("device").get<DeviceInfo>()};
}

void to_wire(const CompileResult& r, json& j, Blob&) {
    j.update({{"ok", r.ok},
              {"diagnostics", r.diagnostics},
              {"log", r.log},
              {"options", r.options},
              {"usage", r.usage},
              {"cache_hit", r.cache_hit},
              {"compile_ms", r.compile_ms},
              {"module", r.module},
              {"error", error_json(r.error)},
              {"also_usage", r.also_usage}});
}
CompileResult from_wire(Type<CompileResult>, const json& j, Blob&) {
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

void to_wire(const AllocateResult& r, json& j, Blob&) {
    j.update({{"buffer", r.buffer},
              {"device_address", r.device_address},
              {"ipc_handle", r.ipc_handle},
              {"ipc_offset", r.ipc_offset},
              {"error", error_json(r.error)},
              {"elapsed_ms", r.elapsed_ms}});
}
AllocateResult from_wire(Type<AllocateResult>, const json& j, Blob&) {
    return AllocateResult{j.at("buffer").get<BufferId>(),
                          j.at("device_address").get<uint64_t>(),
                          error_from(j),
                          j.at("ipc_handle").get<std::vector<uint8_t>>(),
                          j.at("ipc_offset").get<uint64_t>(),
                          j.at("elapsed_ms").get<double>()};
}

void to_wire(const UploadResult& r, json& j, Blob&) {
    j.update({{"error", error_json(r.error)}, {"elapsed_ms", r.elapsed_ms}});
}
UploadResult from_wire(Type<UploadResult>, const json& j, Blob&) {
    return UploadResult{error_from(j), j.at("elapsed_ms").get<double>()};
}

// A kept warp's requests (MemoryRecording::warps): per request its active mask and counts, then address and size
// of each active lane, in lane order: 4 + 2 * active lanes numbers.
json warp_details_json(const std::vector<WarpSiteDetail>& details) {
    json out = json::array();
    for (const WarpSiteDetail& d : details) {
        json requests = json::array();
        for (const WarpRequest& r : d.requests) {
            for (uint64_t v : {uint64_t(r.active), r.sectors, r.ideal_sectors, r.bank_conflicts}) requests.push_back(v);
            for (int lane = 0; lane < 32; ++lane)
                if (r.active >> lane & 1u) {
                    requests.push_back(r.address[lane]);
                    requests.push_back(r.size[lane]);
                }
        }
        out.push_back({{"block", d.warp.block},
                       {"warp", d.warp.warp},
                       {"site", d.site},
                       {"line", d.line},
                       {"space", int(d.space)},
                       {"store", d.store},
                       {"requests_total", d.requests_total},
                       {"requests", std::move(requests)}});
    }
    return out;
}
std::vector<WarpSiteDetail> warp_details_from(const json& a) {
    std::vector<WarpSiteDetail> out;
    for (const json& x : a) {
        WarpSiteDetail d;
        d.warp = {x.at("block").get<uint64_t>(), x.at("warp").get<uint32_t>()};
        d.site = x.at("site").get<uint64_t>();
        d.line = x.at("line").get<int>();
        d.space = x.at("space").get<int>() ? MemorySpace::Shared : MemorySpace::Global;
        d.store = x.at("store").get<bool>();
        d.requests_total = x.at("requests_total").get<uint64_t>();
        const json& r = x.at("requests");
        for (size_t i = 0; i < r.size();) {
            if (i + 4 > r.size()) malformed("a warp request cut short");
            WarpRequest q;
            q.active = r[i].get<uint32_t>();
            q.sectors = r[i + 1].get<uint64_t>();
            q.ideal_sectors = r[i + 2].get<uint64_t>();
            q.bank_conflicts = r[i + 3].get<uint64_t>();
            i += 4;
            for (int lane = 0; lane < 32; ++lane)
                if (q.active >> lane & 1u) {
                    if (i + 2 > r.size()) malformed("a warp request's lanes cut short");
                    q.address[lane] = r[i].get<uint64_t>();
                    q.size[lane] = r[i + 1].get<uint32_t>();
                    i += 2;
                }
            d.requests.push_back(q);
        }
        out.push_back(std::move(d));
    }
    return out;
}

// The debugger's recording: its tables packed (below) and the values' bytes in the message's blob, the rest (and
// the shared snapshots, as hex) in the JSON.
std::string hex_of(const std::vector<std::byte>& bytes) {
    static const char digits[] = "0123456789abcdef";
    std::string out(bytes.size() * 2, '0');
    for (size_t i = 0; i < bytes.size(); ++i) {
        const unsigned v = std::to_integer<unsigned>(bytes[i]);
        out[2 * i] = digits[v >> 4];
        out[2 * i + 1] = digits[v & 15];
    }
    return out;
}
std::vector<std::byte> bytes_of_hex(const std::string& hex) {
    if (hex.size() % 2) malformed("hex text of odd length");
    auto digit = [](char c) -> unsigned {
        if (c >= '0' && c <= '9') return unsigned(c - '0');
        if (c >= 'a' && c <= 'f') return unsigned(c - 'a' + 10);
        malformed("a hex digit that is not one");
        return 0;
    };
    std::vector<std::byte> out(hex.size() / 2);
    for (size_t i = 0; i < out.size(); ++i) out[i] = std::byte((digit(hex[2 * i]) << 4) | digit(hex[2 * i + 1]));
    return out;
}
// The recording's steps, variables and accesses are millions of numbers for a long block (the register-blocked
// multiply: 200 000 steps of 30 variables): as JSON arrays they cost gigabytes and half a minute to build and
// parse, so each table is a section of the blob of LEB128 numbers (signed ones zigzagged; a variable's offset as
// its distance from where the previous variable's bytes end, mostly 0).
class NumberPacker {
public:
    void put(uint64_t v) {
        while (v >= 0x80) {
            out_.push_back(std::byte(uint8_t(v & 0x7f) | 0x80));
            v >>= 7;
        }
        out_.push_back(std::byte(uint8_t(v)));
    }
    void put_signed(int64_t v) { put((uint64_t(v) << 1) ^ uint64_t(v >> 63)); }
    // Appends the numbers to the message's blob; its place there for the JSON ([offset, bytes]).
    json append_to(Blob& blob) const {
        const size_t at = blob.size();
        blob.insert(blob.end(), out_.begin(), out_.end());
        return json::array({at, out_.size()});
    }

private:
    std::vector<std::byte> out_;
};
// A section of the message's blob, [offset, bytes] in the JSON, checked against the blob's size.
std::pair<const std::byte*, size_t> blob_section(const json& place, const Blob& blob, const char* what) {
    const uint64_t at = place.at(0).get<uint64_t>(), n = place.at(1).get<uint64_t>();
    if (at > blob.size() || n > blob.size() - at)
        malformed(std::string("the debugger's ") + what + " outside the message");
    return {blob.data() + at, size_t(n)};
}
class NumberUnpacker {
public:
    NumberUnpacker(std::pair<const std::byte*, size_t> in, const char* what)
        : in_(in.first), size_(in.second), what_(what) {}
    uint64_t get() {
        uint64_t v = 0;
        for (unsigned shift = 0;; shift += 7) {
            if (at_ >= size_ || shift > 63) malformed(std::string("the debugger's ") + what_ + " cut short");
            const auto b = std::to_integer<uint64_t>(in_[at_++]);
            v |= (b & 0x7f) << shift;
            if (!(b & 0x80)) return v;
        }
    }
    int64_t get_signed() {
        const uint64_t v = get();
        return int64_t(v >> 1) ^ -int64_t(v & 1);
    }
    uint32_t get32() {
        const uint64_t v = get();
        if (v > UINT32_MAX) malformed(std::string("a number too large in the debugger's ") + what_);
        return uint32_t(v);
    }
    bool done() const { return at_ == size_; }

private:
    const std::byte* in_;
    size_t size_;
    size_t at_ = 0;
    const char* what_;
};

// One packed table of a debugger recording: the JSON's `count_key` rows in the blob's `table` section. The count
// comes from the worker too: each row takes at least `min_bytes` (a byte a number), so a count larger than its
// section allows is refused before anything is reserved, and bytes left after the last row are refused too.
template <typename Row, typename ReadRow>
std::vector<Row> unpack_debug_table(const json& j, const Blob& blob, const char* count_key, const char* table,
                                    size_t min_bytes, ReadRow read_row) {
    const auto section = blob_section(j.at(table), blob, table);
    const uint64_t n = j.at(count_key).get<uint64_t>();
    if (n > section.second / min_bytes)
        malformed(std::string("a debugger recording whose ") + count_key + " does not match its table");
    NumberUnpacker in(section, table);
    std::vector<Row> rows;
    rows.reserve(size_t(n));
    for (uint64_t i = 0; i < n; ++i) rows.push_back(read_row(in));
    if (!in.done()) malformed(std::string("debugger ") + table + " longer than their count");
    return rows;
}

json debug_recording_json(const DebugRecording& d, Blob& blob) {
    NumberPacker steps, vars, accesses;
    for (const DebugStep& s : d.steps) {
        steps.put(s.round);
        steps.put(s.thread);
        steps.put_signed(s.line);
        steps.put(s.first_variable);
        steps.put(s.variable_count);
    }
    uint64_t end = 0;  // where the previous variable's bytes end
    for (const DebugVariable& v : d.variables) {
        for (uint64_t x : {uint64_t(v.name), uint64_t(v.kind), uint64_t(v.element_size), uint64_t(v.count)}) vars.put(x);
        vars.put_signed(int64_t(v.offset - end));
        for (uint64_t x : {uint64_t(v.bytes), uint64_t(v.pointee_kind), uint64_t(v.pointee_size)}) vars.put(x);
        end = v.offset + v.bytes;
    }
    json shared = json::array();
    for (const DebugSharedArray& a : d.shared)
        shared.push_back({{"name", a.name}, {"kind", int(a.kind)}, {"element_size", a.element_size},
                          {"extents", a.extents}, {"bytes", a.bytes}, {"base", a.base}});
    for (const DebugAccess& a : d.accesses) {
        for (uint64_t x : {a.address, uint64_t(a.round), uint64_t(a.thread)}) accesses.put(x);
        accesses.put_signed(a.line);
        for (uint64_t x : {uint64_t(a.bytes), uint64_t(a.write), uint64_t(a.has_value)}) accesses.put(x);
        if (a.has_value) accesses.put(a.value);
    }
    json snapshots = json::array();
    for (const auto& r : d.shared_snapshots) snapshots.push_back(hex_of(r));
    json regions = json::array();
    for (const DebugRegion& r : d.regions)
        regions.push_back({{"name", r.name}, {"base", r.base}, {"bytes", r.bytes}, {"element_size", r.element_size}});
    const json values_place = json::array({blob.size(), d.values.size()});
    blob.insert(blob.end(), d.values.begin(), d.values.end());
    return {{"block_index", d.block_index}, {"block_dim", d.block_dim}, {"threads", d.threads},
            {"names", d.names},  {"steps", steps.append_to(blob)}, {"step_count", d.steps.size()},
            {"variables", vars.append_to(blob)}, {"variable_count", d.variables.size()},
            {"values", values_place}, {"shared", std::move(shared)}, {"shared_snapshots", std::move(snapshots)},
            {"shared_after_round", d.shared_after_round}, {"regions", std::move(regions)},
            {"rounds", d.rounds}, {"barriers", d.barriers}, {"truncated", d.truncated}, {"cap_bytes", d.cap_bytes},
            {"accesses", accesses.append_to(blob)}, {"access_count", d.accesses.size()},
            {"accesses_recorded", d.accesses_recorded}, {"focus_warp", d.focus_warp}, {"ms", d.ms}};
}
DebugRecording debug_recording_from(const json& j, const Blob& blob) {
    DebugRecording d;
    d.block_index = j.at("block_index").get<Dim3>();
    d.block_dim = j.at("block_dim").get<Dim3>();
    d.threads = j.at("threads").get<uint32_t>();
    d.names = j.at("names").get<std::vector<std::string>>();
    d.steps = unpack_debug_table<DebugStep>(j, blob, "step_count", "steps", 5, [](NumberUnpacker& in) {
        DebugStep x;
        x.round = in.get32();
        x.thread = in.get32();
        x.line = int32_t(in.get_signed());
        x.first_variable = in.get32();
        x.variable_count = in.get32();
        return x;
    });
    uint64_t end = 0;  // where the previous variable's bytes end: each offset is packed as its distance from there
    d.variables = unpack_debug_table<DebugVariable>(j, blob, "variable_count", "variables", 8, [&](NumberUnpacker& in) {
        DebugVariable x;
        x.name = in.get32();
        x.kind = DebugValueKind(std::min<uint64_t>(in.get(), 5));
        x.element_size = in.get32();
        x.count = in.get32();
        x.offset = end + uint64_t(in.get_signed());
        x.bytes = in.get32();
        x.pointee_kind = DebugValueKind(std::min<uint64_t>(in.get(), 5));
        x.pointee_size = in.get32();
        end = x.offset + x.bytes;
        return x;
    });
    const auto values = blob_section(j.at("values"), blob, "values");
    d.values.assign(values.first, values.first + values.second);
    for (const json& a : j.at("shared")) {
        DebugSharedArray x;
        x.name = a.at("name").get<std::string>();
        x.kind = DebugValueKind(std::clamp(a.at("kind").get<int>(), 0, 5));
        x.element_size = a.at("element_size").get<uint32_t>();
        x.extents = a.at("extents").get<std::vector<uint64_t>>();
        x.bytes = a.at("bytes").get<uint64_t>();
        x.base = a.at("base").get<uint64_t>();
        d.shared.push_back(std::move(x));
    }
    d.accesses = unpack_debug_table<DebugAccess>(j, blob, "access_count", "accesses", 7, [](NumberUnpacker& in) {
        DebugAccess a;
        a.address = in.get();
        a.round = in.get32();
        a.thread = in.get32();
        a.line = int32_t(in.get_signed());
        a.bytes = uint16_t(std::min<uint64_t>(in.get(), 0xffff));
        a.write = in.get() != 0;
        a.has_value = in.get() != 0;
        if (a.has_value) a.value = in.get();
        return a;
    });
    d.accesses_recorded = j.at("accesses_recorded").get<bool>();
    d.focus_warp = j.contains("focus_warp") ? j.at("focus_warp").get<int32_t>() : -1;
    if (d.focus_warp < -1 || (d.focus_warp >= 0 && uint64_t(d.focus_warp) * 32 >= d.threads))
        malformed("the debugger's warp " + std::to_string(d.focus_warp) + " of a block of " + std::to_string(d.threads) +
                  " threads");
    for (const json& r : j.at("shared_snapshots")) d.shared_snapshots.push_back(bytes_of_hex(r.get<std::string>()));
    d.shared_after_round = j.at("shared_after_round").get<std::vector<uint32_t>>();
    for (const json& r : j.at("regions"))
        d.regions.push_back({r.at("name").get<std::string>(), r.at("base").get<uint64_t>(), r.at("bytes").get<uint64_t>(),
                             r.at("element_size").get<uint32_t>()});
    d.rounds = j.at("rounds").get<uint32_t>();
    d.barriers = j.at("barriers").get<std::vector<uint32_t>>();
    d.truncated = j.at("truncated").get<bool>();
    d.cap_bytes = j.at("cap_bytes").get<uint64_t>();
    d.ms = j.at("ms").get<double>();
    // A worker runs the user's code: what it sends is checked before anything indexes with it.
    if (d.shared_after_round.size() != d.rounds) malformed("a debugger recording whose rounds do not match");
    uint64_t shared_bytes = 0;
    for (const DebugSharedArray& a : d.shared) shared_bytes += a.bytes;
    for (const auto& r : d.shared_snapshots)
        if (r.size() > shared_bytes) malformed("a debugger recording's shared memory larger than its arrays");
    for (uint32_t state : d.shared_after_round)
        if (state >= d.shared_snapshots.size()) malformed("a debugger round whose shared memory is not recorded");
    for (const DebugVariable& x : d.variables)
        if (x.name >= d.names.size() || x.offset + x.bytes > d.values.size() || x.offset + x.bytes < x.offset)
            malformed("a debugger variable outside the recording");
    for (const DebugStep& x : d.steps)
        if (x.thread >= d.threads || x.round >= std::max<uint32_t>(d.rounds, 1) ||
            uint64_t(x.first_variable) + x.variable_count > d.variables.size())
            malformed("a debugger step outside the recording");
    for (uint32_t b : d.barriers)
        if (b >= d.rounds) malformed("a debugger barrier after the last round");
    for (size_t i = 0; i < d.accesses.size(); ++i)
        if (d.accesses[i].thread >= d.threads || d.accesses[i].round >= std::max<uint32_t>(d.rounds, 1) ||
            (i && d.accesses[i].round < d.accesses[i - 1].round))
            malformed("a debugger access outside the recording");
    return d;
}

void to_wire(const LaunchResult& r, json& j, Blob& blob) {
    j.update({{"ok", r.ok},
              {"samples_ms", r.timing.samples_ms},
              {"cpu_time", r.timing.cpu_time},
              {"printf_output", r.printf_output},
              {"error", error_json(r.error)},
              {"trace_unit", r.trace_unit},
              {"backend_ms", r.backend_ms},
              {"phases",
               {{"setup_ms", r.phases.setup_ms},
                {"launch_calls_ms", r.phases.launch_calls_ms},
                {"wait_ms", r.phases.wait_ms},
                {"after_ms", r.phases.after_ms},
                {"kernel_ms", r.phases.kernel_ms}}}});
    // The trace travels in the JSON itself, 4 numbers a block (block, unit, start, end), so that a carrier that
    // forwards only the JSON part (the CPU worker's protocol) keeps it.
    json records = json::array();
    for (const BlockTrace& b : r.trace) {
        records.push_back(b.block);
        records.push_back(b.unit);
        records.push_back(b.start_ns);
        records.push_back(b.end_ns);
    }
    j["trace"] = std::move(records);
    if (r.memory) {
        const MemoryRecording& m = *r.memory;
        json figures = json::array();  // 9 numbers a site
        for (const MemoryFigures& f : m.figures)
            for (uint64_t v : {f.site, uint64_t(int64_t(f.line)), uint64_t(f.space), uint64_t(f.store), f.requests,
                               f.sectors, f.ideal_sectors, f.bank_conflicts, f.active_lanes})
                figures.push_back(v);
        j["memory"] = {{"accesses", m.accesses},
                       {"access_cap", m.access_cap},
                       {"capped", m.capped},
                       {"blocks_recorded", m.blocks_recorded},
                       {"blocks_total", m.blocks_total},
                       {"ms", m.ms},
                       {"figures", std::move(figures)},
                       {"warps", warp_details_json(m.warps)}};
    } else {
        j["memory"] = nullptr;
    }
    j["debug"] = r.debug ? debug_recording_json(*r.debug, blob) : json(nullptr);
}
LaunchResult from_wire(Type<LaunchResult>, const json& j, Blob& blob) {
    LaunchResult r;
    r.ok = j.at("ok").get<bool>();
    r.timing = TimingStats::from_samples(j.at("samples_ms").get<std::vector<double>>(), j.at("cpu_time").get<bool>());
    r.printf_output = j.at("printf_output").get<std::string>();
    r.error = error_from(j);
    r.trace_unit = j.at("trace_unit").get<std::string>();
    r.backend_ms = j.at("backend_ms").get<double>();
    const json& p = j.at("phases");
    r.phases.setup_ms = p.at("setup_ms").get<double>();
    r.phases.launch_calls_ms = p.at("launch_calls_ms").get<double>();
    r.phases.wait_ms = p.at("wait_ms").get<double>();
    r.phases.after_ms = p.at("after_ms").get<double>();
    r.phases.kernel_ms = p.at("kernel_ms").get<double>();
    const json& a = j.at("trace");
    if (a.size() % 4 != 0) malformed("a trace of " + std::to_string(a.size()) + " numbers (4 a block)");
    for (size_t i = 0; i + 3 < a.size(); i += 4)
        r.trace.push_back(
            {a[i].get<uint64_t>(), a[i + 1].get<uint32_t>(), a[i + 2].get<uint64_t>(), a[i + 3].get<uint64_t>()});
    if (const json& m = j.at("memory"); !m.is_null()) {
        MemoryRecording rec;
        rec.accesses = m.at("accesses").get<uint64_t>();
        rec.access_cap = m.at("access_cap").get<uint64_t>();
        rec.capped = m.at("capped").get<bool>();
        rec.blocks_recorded = m.at("blocks_recorded").get<uint64_t>();
        rec.blocks_total = m.at("blocks_total").get<uint64_t>();
        rec.ms = m.at("ms").get<double>();
        const json& f = m.at("figures");
        if (f.size() % 9 != 0) malformed("memory figures of " + std::to_string(f.size()) + " numbers (9 a site)");
        for (size_t i = 0; i + 8 < f.size(); i += 9) {
            MemoryFigures x;
            x.site = f[i].get<uint64_t>();
            x.line = int(int64_t(f[i + 1].get<uint64_t>()));
            x.space = f[i + 2].get<uint64_t>() ? MemorySpace::Shared : MemorySpace::Global;
            x.store = f[i + 3].get<uint64_t>() != 0;
            x.requests = f[i + 4].get<uint64_t>();
            x.sectors = f[i + 5].get<uint64_t>();
            x.ideal_sectors = f[i + 6].get<uint64_t>();
            x.bank_conflicts = f[i + 7].get<uint64_t>();
            x.active_lanes = f[i + 8].get<uint64_t>();
            rec.figures.push_back(x);
        }
        rec.warps = warp_details_from(m.at("warps"));
        r.memory = std::move(rec);
    }
    if (j.contains("debug") && !j.at("debug").is_null()) r.debug = debug_recording_from(j.at("debug"), blob);
    return r;
}

void to_wire(const ReadBackResult& r, json& j, Blob& blob) {
    j.update({{"error", error_json(r.error)}, {"elapsed_ms", r.elapsed_ms}});
    if (r.preview_width) j["preview"] = {r.preview_width, r.preview_height};
    blob = r.data;
}
ReadBackResult from_wire(Type<ReadBackResult>, const json& j, Blob& blob) {
    ReadBackResult r{std::move(blob), error_from(j), j.at("elapsed_ms").get<double>()};
    if (const auto p = j.find("preview"); p != j.end()) {
        r.preview_width = p->at(0).get<uint32_t>();
        r.preview_height = p->at(1).get<uint32_t>();
    }
    return r;
}

void to_wire(const ReleaseResult&, json&, Blob&) {}
ReleaseResult from_wire(Type<ReleaseResult>, const json&, Blob&) {
    return {};
}

void to_wire(const OccupancyResult& r, json& j, Blob&) {
    j.update({{"min_grid_size", r.min_grid_size},
              {"block_size", r.block_size},
              {"active_blocks_per_sm", r.active_blocks_per_sm},
              {"occupancy", r.occupancy},
              {"method", r.method},
              {"error", error_json(r.error)},
              {"active_blocks", r.active_blocks}});
}
OccupancyResult from_wire(Type<OccupancyResult>, const json& j, Blob&) {
    OccupancyResult r;
    r.min_grid_size = j.at("min_grid_size").get<int>();
    r.block_size = j.at("block_size").get<int>();
    r.active_blocks_per_sm = j.at("active_blocks_per_sm").get<int>();
    r.occupancy = j.at("occupancy").get<double>();
    r.method = j.at("method").get<std::string>();
    r.error = error_from(j);
    r.active_blocks = j.at("active_blocks").get<std::vector<int>>();
    return r;
}

void to_wire(const StreamsResult& r, json& j, Blob& blob) {
    json ops = json::array(), sizes = json::array();
    for (const StreamOp& op : r.ops)
        ops.push_back({op.stream, op.chunk, int(op.kind), op.start_ms, op.end_ms, op.bytes});
    for (const auto& d : r.d2h_data) {
        sizes.push_back(d.size());
        blob.insert(blob.end(), d.begin(), d.end());
    }
    j.update({{"ok", r.ok},
              {"ops", ops},
              {"total_ms", r.total_ms},
              {"one_stream_ms", r.one_stream_ms},
              {"host_clock", r.host_clock},
              {"d2h_sizes", sizes},
              {"printf_output", r.printf_output},
              {"error", error_json(r.error)}});
}
StreamsResult from_wire(Type<StreamsResult>, const json& j, Blob& blob) {
    StreamsResult r;
    r.ok = j.at("ok").get<bool>();
    for (const json& op : j.at("ops")) {
        const int kind = op.at(2).get<int>();
        if (kind < 0 || kind > 2)
            malformed("stream operation kind " + std::to_string(kind) + " is not one this build knows");
        r.ops.push_back({op.at(0).get<int>(), op.at(1).get<int>(), StreamOpKind(kind), op.at(3).get<double>(),
                         op.at(4).get<double>(), op.at(5).get<uint64_t>()});
    }
    r.total_ms = j.at("total_ms").get<double>();
    r.one_stream_ms = j.at("one_stream_ms").get<double>();
    r.host_clock = j.at("host_clock").get<bool>();
    size_t at = 0;
    for (const json& size : j.at("d2h_sizes")) {
        const uint64_t n = size.get<uint64_t>();
        if (n > blob.size() - at) malformed("a copy's bytes run past the end of the message's data");
        r.d2h_data.emplace_back(blob.begin() + std::ptrdiff_t(at), blob.begin() + std::ptrdiff_t(at + n));
        at += n;
    }
    r.printf_output = j.at("printf_output").get<std::string>();
    r.error = error_from(j);
    return r;
}

// ---- the tables -----------------------------------------------------------------------------------------

// Every alternative of the variant has a name, and no two share one (else decoding would be ambiguous).
template <class V, size_t... I>
constexpr bool names_distinct(std::index_sequence<I...>) {
    constexpr std::string_view names[] = {WireTag<std::variant_alternative_t<I, V>>::name...};
    for (size_t a = 0; a < sizeof...(I); ++a)
        for (size_t b = a + 1; b < sizeof...(I); ++b)
            if (names[a] == names[b]) return false;
    return true;
}
static_assert(names_distinct<Request>(std::make_index_sequence<std::variant_size_v<Request>>{}),
              "two request types share a wire name");
static_assert(names_distinct<Response>(std::make_index_sequence<std::variant_size_v<Response>>{}),
              "two response types share a wire name");

template <class V>
WireMessage encode(const V& value) {
    WireMessage m;
    json j;
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            j["type"] = std::string(WireTag<T>::name);
            to_wire(x, j, m.blob);
        },
        value);
    m.json = j.dump(-1, ' ', false, json::error_handler_t::replace);
    return m;
}

// The alternative of V whose name is `type`, made by its from_wire: one comparison per alternative, the list
// built from the variant itself.
template <class V, size_t... I>
std::optional<V> decode_named(std::string_view type, const json& j, Blob& blob, std::index_sequence<I...>) {
    std::optional<V> out;
    (void)((type == WireTag<std::variant_alternative_t<I, V>>::name
                ? (out.emplace(from_wire(Type<std::variant_alternative_t<I, V>>{}, j, blob)), true)
                : false) ||
           ...);
    return out;
}

template <class V>
Result<V> decode(WireMessage message, const char* what) {
    auto fail = [&](const std::string& why) {
        return make_error(ErrorKind::Internal, std::string("a malformed ") + what + " on a worker's socket: " + why,
                          "the app and its worker disagree on the messages between them; this is a bug, or a worker "
                          "from another build: rebuild or reinstall CUDA Playground");
    };
    try {
        const json j = json::parse(message.json);
        const std::string type = j.at("type").get<std::string>();
        std::optional<V> out =
            decode_named<V>(type, j, message.blob, std::make_index_sequence<std::variant_size_v<V>>{});
        if (!out) return fail("unknown message type `" + type + "`");
        return std::move(*out);
    } catch (const std::exception& e) {
        return fail(e.what());
    }
}

}  // namespace

// ---- requests and responses -----------------------------------------------------------------------------

WireMessage encode_request(const Request& request) {
    return encode(request);
}
Result<Request> decode_request(WireMessage message) {
    return decode<Request>(std::move(message), "request");
}
WireMessage encode_response(const Response& response) {
    return encode(response);
}
Result<Response> decode_response(WireMessage message) {
    return decode<Response>(std::move(message), "response");
}

// ---- the greeting ---------------------------------------------------------------------------------------

std::optional<Error> check_worker_protocol(int worker_version, const std::string& worker) {
    if (worker_version == kWireProtocolVersion) return std::nullopt;
    return make_error(ErrorKind::WorkerLost,
                      "the " + worker + " process speaks wire protocol " + std::to_string(worker_version) +
                          " but this app speaks " + std::to_string(kWireProtocolVersion) +
                          ": the worker binary is from another build of CUDA Playground",
                      "rebuild CUDA Playground (./playground.sh build), or reinstall it, so that the app and its "
                      "workers come from the same build");
}

}  // namespace cp
