// Scripts: the server that answers a script's pycuda/cupy requests on the engine, and run_script, which starts the
// script confined and serves it. Sections: wire · server · run_script
#include "core/session/script_host.h"

#include "core/backends/registry.h"
#include "core/engine/device_info_json.h"
#include "core/kernel_file/kernel_file.h"
#include "core/text_util.h"
#include "core/worker/script_process.h"
#include "core/worker/subprocess.h"

#include <nlohmann/json.hpp>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

namespace cp {

namespace fs = std::filesystem;
using nlohmann::json;

bool is_script_file(const fs::path& path) { return path.extension() == ".py"; }

// ---- wire ---------------------------------------------------------------------------------------------------

namespace {

constexpr uint32_t kMaxHeader = 64u << 20;     // a kernel's source is in the header
constexpr uint64_t kMaxPayload = 64ull << 30;  // what one copy may move

bool read_exact(int fd, void* data, size_t size) {
    auto* p = static_cast<char*>(data);
    while (size) {
        const ssize_t n = read(fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n;
        size -= size_t(n);
    }
    return true;
}

bool write_all(int fd, const void* data, size_t size) {
    const auto* p = static_cast<const char*>(data);
    while (size) {
        const ssize_t n = write(fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n;
        size -= size_t(n);
    }
    return true;
}

struct Message {
    json header;
    std::vector<std::byte> payload;
};

// nullopt: the connection ended or spoke nonsense.
std::optional<Message> read_message(int fd) {
    unsigned char lengths[12];
    if (!read_exact(fd, lengths, sizeof lengths)) return std::nullopt;
    uint32_t header_len = 0;
    uint64_t payload_len = 0;
    for (int i = 3; i >= 0; --i) header_len = header_len << 8 | lengths[i];
    for (int i = 11; i >= 4; --i) payload_len = payload_len << 8 | lengths[i];
    if (header_len > kMaxHeader || payload_len > kMaxPayload) return std::nullopt;
    std::string text(header_len, '\0');
    if (!read_exact(fd, text.data(), text.size())) return std::nullopt;
    Message m;
    m.header = json::parse(text, nullptr, false);
    if (m.header.is_discarded() || !m.header.is_object()) return std::nullopt;
    m.payload.resize(payload_len);
    if (payload_len && !read_exact(fd, m.payload.data(), m.payload.size())) return std::nullopt;
    return m;
}

bool write_message(int fd, const json& header, const void* payload = nullptr, uint64_t payload_len = 0) {
    const std::string text = header.dump(-1, ' ', false, json::error_handler_t::replace);
    unsigned char lengths[12];
    for (int i = 0; i < 4; ++i) lengths[i] = (uint32_t(text.size()) >> (8 * i)) & 0xff;
    for (int i = 0; i < 8; ++i) lengths[4 + i] = (payload_len >> (8 * i)) & 0xff;
    return write_all(fd, lengths, sizeof lengths) && write_all(fd, text.data(), text.size()) &&
           (!payload_len || write_all(fd, payload, payload_len));
}


std::optional<Dim3> dim3_of(const json& j) {
    if (!j.is_array() || j.size() != 3) return std::nullopt;
    Dim3 d;
    for (int i = 0; i < 3; ++i)
        if (!j[i].is_number_unsigned()) return std::nullopt;
    const uint64_t x = j[0], y = j[1], z = j[2];
    if (x > UINT32_MAX || y > UINT32_MAX || z > UINT32_MAX) return std::nullopt;
    d.x = uint32_t(x), d.y = uint32_t(y), d.z = uint32_t(z);
    return d;
}

json error_json(const EngineError& e) {
    json j{{"kind", error_kind_name(e.kind)}, {"name", e.name}, {"message", e.message},
           {"hint", e.hint},                 {"line", e.line}};
    if (e.thread) j["thread"] = dim3_json(*e.thread);
    if (e.block) j["block"] = dim3_json(*e.block);
    return j;
}

json refusal(ErrorKind kind, const std::string& message, const std::string& hint = {}) {
    return {{"ok", false}, {"error", error_json(engine_error(kind, "", message, hint))}};
}

}  // namespace

// ---- server -------------------------------------------------------------------------------------------------

struct ScriptServer::State {
    Engine& engine;
    std::string path;
    struct Module {
        ModuleId id = 0;
        std::string kernel;
        KernelSignature signature;
        std::string source;  // as compiled (padded to the script's lines): what a replay compiles again
        std::vector<std::string> options, include_dirs;
    };
    std::map<uint64_t, Module> modules;
    struct Buffer {
        uint64_t bytes = 0;
        std::string name;
        std::string dtype;  // as the script's NumPy array that filled it, when it said (layout_of)
        std::vector<uint64_t> shape;
    };
    std::map<BufferId, Buffer> buffers;
    std::vector<ProgramLaunch> launches;
    uint64_t next_module = 1;
    std::optional<EngineError> start_error;
    uint64_t capture_limit = 0;  // ScriptRequest::capture_limit
    std::string capture_data;
    std::map<size_t, ProgramLaunchChange> changes;
    std::vector<Diagnostic> diagnostics;  // of modules that did not compile (the window marks their lines)

    State(Engine& e, std::string p) : engine(e), path(std::move(p)) {}

    // The "dtype" and "shape" a request carries (pycuda's and cupy's arrays send them, _runtime.layout).
    static void layout_of(const json& h, Buffer& b) {
        if (!h.contains("dtype") || !h["dtype"].is_string() || !h.contains("shape") || !h["shape"].is_array()) return;
        std::vector<uint64_t> shape;
        for (const json& n : h["shape"]) {
            if (!n.is_number_unsigned()) return;
            shape.push_back(n.get<uint64_t>());
        }
        b.dtype = h["dtype"].get<std::string>();
        b.shape = std::move(shape);
    }

    json hello() {
        const DeviceInfo& d = engine.device();
        return {{"ok", true},
                {"protocol", 1},
                {"device",
                 {{"name", d.name},
                  {"backend", d.backend},
                  {"cc", json::array({d.cc_major, d.cc_minor})},
                  {"total_memory", d.total_memory},
                  {"sm_count", d.sm_count},
                  {"max_threads_per_block", d.max_threads_per_block},
                  {"max_block", dim3_json(d.max_block)},
                  {"max_grid", dim3_json(d.max_grid)},
                  {"max_shared_per_block", d.max_shared_per_block},
                  {"warp_size", d.warp_size},
                  {"driver_version", d.driver_version},
                  {"cpu_time", d.backend == "cpu"},
                  {"notes", d.notes}}}};
    }

    json compile(const json& h) {
        if (!h.contains("source") || !h["source"].is_string() || !h.contains("kernel") || !h["kernel"].is_string())
            return refusal(ErrorKind::Internal, "a compile request without source or kernel");
        const std::string source = h["source"], kernel = h["kernel"];
        const std::string where = h.value("path", path);
        std::vector<Diagnostic> found;
        auto signature = parse_signature(source, where, found, kernel, h.value("call_line", 0));
        if (!signature) {
            json j = refusal(ErrorKind::UserInput, "the module has no __global__ function named `" + kernel + "`",
                             "check the name given to get_function (C++ names it exactly as written in the source)");
            j["error"]["name"] = "CUDA_ERROR_NOT_FOUND";
            return j;
        }
        CompileRequest req;
        req.source = source;
        req.path = where;
        req.kernel_name = signature->launch_name.empty() ? kernel : signature->launch_name;
        for (const auto& o : h.value("options", json::array()))
            if (o.is_string()) req.extra_options.push_back(o);
        for (const auto& d : h.value("include_dirs", json::array()))
            if (d.is_string()) req.include_dirs.push_back(d);
        Module made{0, kernel, *signature, source, req.extra_options, req.include_dirs};
        CompileResult r = engine.compile(std::move(req));
        if (!r.ok)
            for (const Diagnostic& d : r.diagnostics)
                if (d.severity == Severity::Error) diagnostics.push_back(d);
        json diags = json::array();
        for (const Diagnostic& d : r.diagnostics)
            diags.push_back({{"file", d.file},
                             {"line", d.line},
                             {"column", d.column},
                             {"severity", severity_name(d.severity)},
                             {"message", d.message}});
        json params = json::array();
        for (const SignatureParam& p : signature->params)
            params.push_back({{"name", p.name}, {"type", p.type_text}, {"pointer", p.is_pointer}, {"base", p.base_type}});
        json j{{"ok", r.ok && r.module != 0},
               {"diagnostics", diags},
               {"log", r.log},
               {"params", params},
               {"compile_ms", r.compile_ms},
               {"cache_hit", r.cache_hit},
               {"registers", r.usage.registers},
               {"shared_bytes", r.usage.static_shared_bytes},
               {"local_bytes", r.usage.local_bytes},
               {"max_threads_per_block", r.usage.max_threads_per_block}};
        if (r.error) j["error"] = error_json(*r.error);
        if (r.ok && r.module) {
            const uint64_t id = next_module++;
            made.id = r.module;
            modules[id] = std::move(made);
            j["module"] = id;
        }
        return j;
    }

    json allocate(const json& h) {
        AllocateRequest req;
        req.bytes = h.value("bytes", uint64_t(0));
        req.element_bytes = std::max<uint32_t>(1, h.value("element_bytes", 1u));
        req.name = h.value("name", std::string());
        if (req.name.empty()) req.name = "allocation " + std::to_string(buffers.size() + 1);
        if (req.bytes == 0) return refusal(ErrorKind::UserInput, "an allocation of 0 bytes");
        if (engine.device().total_memory && req.bytes > engine.device().total_memory) {
            json j = refusal(ErrorKind::OutOfMemory,
                             "out of memory: " + std::to_string(req.bytes) + " bytes asked, the device has " +
                                 std::to_string(engine.device().total_memory));
            j["error"]["name"] = "CUDA_ERROR_OUT_OF_MEMORY";
            return j;
        }
        AllocateResult r = engine.allocate(req);
        if (r.error || !r.buffer) {
            json j{{"ok", false}};
            j["error"] = r.error ? error_json(*r.error)
                                 : error_json(engine_error(ErrorKind::OutOfMemory, "CUDA_ERROR_OUT_OF_MEMORY",
                                                           "the allocation failed"));
            return j;
        }
        Buffer made{req.bytes, req.name, {}, {}};
        layout_of(h, made);
        buffers[r.buffer] = std::move(made);
        // Freshly allocated memory holds zeros here (the CPU backend's does); a GPU's would hold whatever was there.
        return {{"ok", true}, {"buffer", r.buffer}, {"ms", r.elapsed_ms}};
    }

    Buffer* find(const json& h, const char* key) {
        const auto it = buffers.find(h.value(key, BufferId(0)));
        return it == buffers.end() ? nullptr : &it->second;
    }

    json range_error(const char* what, uint64_t offset, uint64_t bytes, const Buffer& b) {
        return refusal(ErrorKind::UserInput,
                       std::string(what) + " of " + std::to_string(bytes) + " bytes at offset " +
                           std::to_string(offset) + " does not fit `" + b.name + "` (" + std::to_string(b.bytes) +
                           " bytes)",
                       "copy at most the allocation's size");
    }

    json release(const json& h) {
        const BufferId id = h.value("buffer", BufferId(0));
        if (!buffers.erase(id)) return refusal(ErrorKind::UserInput, "free of an allocation that does not exist");
        ReleaseRequest req;
        req.buffers.push_back(id);
        engine.release(req);
        return {{"ok", true}};
    }

    json upload(const json& h, std::vector<std::byte>& payload) {
        Buffer* b = find(h, "buffer");
        if (!b) return refusal(ErrorKind::UserInput, "a copy to an allocation that was freed or never made");
        const uint64_t offset = h.value("offset", uint64_t(0));
        if (offset > b->bytes || payload.size() > b->bytes - offset)
            return range_error("a host-to-device copy", offset, payload.size(), *b);
        layout_of(h, *b);
        UploadRequest req;
        req.buffer = h["buffer"];
        req.offset = offset;
        req.pinned = h.value("pinned", false);
        req.data = std::move(payload);
        UploadResult r = engine.upload(std::move(req));
        if (r.error) return {{"ok", false}, {"error", error_json(*r.error)}};
        return {{"ok", true}, {"ms", r.elapsed_ms}};
    }

    // The buffer's bytes [offset, offset + bytes), or an error.
    std::optional<std::vector<std::byte>> read(BufferId id, uint64_t offset, uint64_t bytes, bool pinned, double& ms,
                                               json& error) {
        ReadBackRequest req;
        req.buffer = id;
        req.pinned = pinned;
        ReadBackResult r = engine.read_back(req);
        if (r.error) {
            error = {{"ok", false}, {"error", error_json(*r.error)}};
            return std::nullopt;
        }
        ms = r.elapsed_ms;
        const std::byte* data = r.in_place ? r.in_place : r.data.data();
        const uint64_t size = r.in_place ? r.in_place_bytes : r.data.size();
        if (offset > size || bytes > size - offset) {
            error = refusal(ErrorKind::Internal, "the device gave back fewer bytes than the allocation holds");
            return std::nullopt;
        }
        return std::vector<std::byte>(data + offset, data + offset + bytes);
    }

    // Appends a whole allocation's bytes to the capture; where they start, or nullopt when it cannot be read (the
    // context is gone).
    std::optional<uint64_t> keep(BufferId id, uint64_t bytes) {
        ReadBackRequest req;
        req.buffer = id;
        ReadBackResult r = engine.read_back(req);
        const std::byte* data = r.in_place ? r.in_place : r.data.data();
        const uint64_t size = r.in_place ? r.in_place_bytes : r.data.size();
        if (r.error || size < bytes) return std::nullopt;
        const uint64_t at = capture_data.size();
        capture_data.append(reinterpret_cast<const char*>(data), bytes);
        return at;
    }

    json download(const json& h, std::vector<std::byte>& out) {
        const Buffer* b = find(h, "buffer");
        if (!b) return refusal(ErrorKind::UserInput, "a copy from an allocation that was freed or never made");
        const uint64_t offset = h.value("offset", uint64_t(0)), bytes = h.value("bytes", uint64_t(0));
        if (offset > b->bytes || bytes > b->bytes - offset) return range_error("a device-to-host copy", offset, bytes, *b);
        double ms = 0;
        json error;
        auto data = read(h["buffer"], offset, bytes, h.value("pinned", false), ms, error);
        if (!data) return error;
        out = std::move(*data);
        return {{"ok", true}, {"ms", ms}};
    }

    json copy(const json& h) {
        const Buffer* src = find(h, "src");
        const Buffer* dst = find(h, "dst");
        if (!src || !dst) return refusal(ErrorKind::UserInput, "a device-to-device copy with a freed allocation");
        const uint64_t so = h.value("src_offset", uint64_t(0)), d_o = h.value("dst_offset", uint64_t(0)),
                       bytes = h.value("bytes", uint64_t(0));
        if (so > src->bytes || bytes > src->bytes - so) return range_error("a device-to-device copy", so, bytes, *src);
        if (d_o > dst->bytes || bytes > dst->bytes - d_o) return range_error("a device-to-device copy", d_o, bytes, *dst);
        double ms = 0;
        json error;
        auto data = read(h["src"], so, bytes, false, ms, error);
        if (!data) return error;
        UploadRequest req;
        req.buffer = h["dst"];
        req.offset = d_o;
        req.data = std::move(*data);
        UploadResult r = engine.upload(std::move(req));
        if (r.error) return {{"ok", false}, {"error", error_json(*r.error)}};
        return {{"ok", true}, {"ms", ms + r.elapsed_ms}};
    }

    json fill(const json& h) {
        const Buffer* b = find(h, "buffer");
        if (!b) return refusal(ErrorKind::UserInput, "a memset of an allocation that was freed or never made");
        const uint64_t offset = h.value("offset", uint64_t(0)), bytes = h.value("bytes", uint64_t(0));
        const std::vector<std::byte> pattern = bytes_of_hex(h.value("pattern", std::string("00")));
        if (pattern.empty() || bytes % pattern.size())
            return refusal(ErrorKind::UserInput, "a memset whose size is not a multiple of its value's");
        if (offset > b->bytes || bytes > b->bytes - offset) return range_error("a memset", offset, bytes, *b);
        UploadRequest req;
        req.buffer = h["buffer"];
        if (offset == 0 && bytes == b->bytes && pattern.size() <= 16) {
            req.repeat = true;
            req.data = pattern;
        } else {
            req.offset = offset;
            req.data.resize(bytes);
            fill_with_pattern(req.data.data(), bytes, pattern);
        }
        UploadResult r = engine.upload(std::move(req));
        if (r.error) return {{"ok", false}, {"error", error_json(*r.error)}};
        return {{"ok", true}, {"ms", r.elapsed_ms}};
    }

    json launch(const json& h) {
        const auto m = modules.find(h.value("module", uint64_t(0)));
        if (m == modules.end()) return refusal(ErrorKind::Internal, "a launch of a function that was never loaded");
        const auto grid = dim3_of(h.value("grid", json())), block = dim3_of(h.value("block", json()));
        if (!grid || !block) return refusal(ErrorKind::UserInput, "grid and block must be three whole numbers each");
        const KernelSignature& sig = m->second.signature;
        const auto change = changes.find(launches.size());
        LaunchRequest req;
        req.module = m->second.id;
        req.kernel_name = sig.launch_name.empty() ? m->second.kernel : sig.launch_name;
        req.grid = *grid;
        req.block = *block;
        if (change != changes.end()) {  // the window's "run the script with this change"
            req.grid = change->second.grid.value_or(req.grid);
            req.block = change->second.block.value_or(req.block);
        }
        req.dynamic_shared_bytes = h.value("shared", 0u);
        req.timing.warmup = 0;  // a script's launch runs once, as it asked (atomics add up, outputs accumulate)
        req.timing.repeats = 1;
        ProgramLaunch record;
        record.kernel = m->second.kernel;
        record.instance = req.kernel_name;
        record.line = h.value("line", 0);
        record.grid = req.grid;
        record.block = req.block;
        record.changed = change != changes.end();
        record.module_source = m->second.source;
        record.module_options = m->second.options;
        record.module_include_dirs = m->second.include_dirs;
        std::vector<BufferId> reached;  // record.buffers' allocations
        record.shared_bytes = req.dynamic_shared_bytes;
        record.stream = h.value("stream", uint64_t(0));
        const json args = h.value("args", json::array());
        for (size_t i = 0; i < args.size(); ++i) {
            const json& a = args[i];
            KernelArg arg;
            arg.name = i < sig.params.size() ? sig.params[i].name : "arg" + std::to_string(i);
            ProgramArg shown;
            if (a.contains("buffer")) {
                const auto b = buffers.find(a.value("buffer", BufferId(0)));
                if (b == buffers.end())
                    return refusal(ErrorKind::UserInput,
                                   "argument " + std::to_string(i + 1) + " (`" + arg.name +
                                       "`) points into an allocation that was freed");
                arg.buffer = b->first;
                arg.offset = a.value("offset", uint64_t(0));
                shown.size = 8;
                shown.pointer = true;
                shown.buffer = b->second.name;
                shown.offset = arg.offset;
                ProgramBuffer pb;
                pb.name = b->second.name;
                pb.bytes = b->second.bytes;
                pb.dtype = b->second.dtype;
                pb.shape = b->second.shape;
                if (std::find(reached.begin(), reached.end(), b->first) == reached.end()) {
                    record.buffers.push_back(pb);
                    reached.push_back(b->first);
                }
            } else {
                std::vector<std::byte> bytes = bytes_of_hex(a.value("hex", std::string()));
                if (change != changes.end())
                    if (auto v = change->second.scalars.find(i); v != change->second.scalars.end() && v->second.size() == bytes.size())
                        bytes = v->second;
                arg.scalar = bytes;
                shown.size = uint32_t(bytes.size());
                shown.bytes_hex = hex_of_bytes(bytes.data(), bytes.size());
            }
            req.args.push_back(std::move(arg));
            record.args.push_back(std::move(shown));
        }
        // Kept before and after (the window re-runs the launch alone on them), while the capture has room for both.
        for (size_t k = 0; k < reached.size() && capture_limit; ++k) {
            ProgramBuffer& pb = record.buffers[k];
            if (capture_data.size() + 2 * pb.bytes > capture_limit) continue;
            if (auto at = keep(reached[k], pb.bytes)) pb.captured = true, pb.before_at = *at;
        }
        LaunchResult r = engine.launch(std::move(req));
        if (!(r.error && (r.error->kind == ErrorKind::LaunchRefused || r.error->context_was_reset)))
            for (size_t k = 0; k < reached.size(); ++k) {
                ProgramBuffer& pb = record.buffers[k];
                if (!pb.captured) continue;
                if (auto at = keep(reached[k], pb.bytes)) pb.has_after = true, pb.after_at = *at;
            }
        record.ms = r.timing.samples_ms.empty() ? r.timing.median_ms : r.timing.samples_ms.back();
        json j{{"ok", r.ok && !r.error}, {"ms", record.ms}, {"printf", r.printf_output}, {"cpu_time", r.timing.cpu_time}};
        if (r.error) {
            j["error"] = error_json(*r.error);
            record.error = *r.error;
            // The driver API's code, as PyCUDA and CuPy see it: invalid value, illegal address, timeout, failure.
            record.cuda_error = r.error->kind == ErrorKind::LaunchRefused ? 1
                                : r.error->kind == ErrorKind::OutOfBounds ? 700
                                : r.error->kind == ErrorKind::Hang        ? 702
                                                                          : 719;
            if (r.error->context_was_reset) {  // every allocation and module is gone with the context
                buffers.clear();
                modules.clear();
                j["context_lost"] = true;
            }
        }
        launches.push_back(std::move(record));
        return j;
    }
};

ScriptServer::ScriptServer(Engine& engine, std::string script_path, uint64_t capture_limit,
                           std::map<size_t, ProgramLaunchChange> changes)
    : state_(std::make_unique<State>(engine, std::move(script_path))) {
    state_->capture_limit = capture_limit;
    state_->changes = std::move(changes);
}
ScriptServer::~ScriptServer() = default;

std::vector<ProgramLaunch> ScriptServer::take_launches() { return std::move(state_->launches); }
std::string ScriptServer::take_capture() { return std::move(state_->capture_data); }
std::vector<Diagnostic> ScriptServer::take_diagnostics() { return std::move(state_->diagnostics); }
std::optional<EngineError> ScriptServer::start_error() const { return state_->start_error; }

bool ScriptServer::serve(int in_fd, int out_fd) {
    for (;;) {
        std::optional<Message> m = read_message(in_fd);
        if (!m) return false;
        const std::string op = m->header.value("op", std::string());
        std::vector<std::byte> out;
        json answer;
        try {
            if (op == "hello") answer = state_->hello();
            else if (op == "compile") answer = state_->compile(m->header);
            else if (op == "alloc") answer = state_->allocate(m->header);
            else if (op == "free") answer = state_->release(m->header);
            else if (op == "htod") answer = state_->upload(m->header, m->payload);
            else if (op == "dtoh") answer = state_->download(m->header, out);
            else if (op == "dtod") answer = state_->copy(m->header);
            else if (op == "memset") answer = state_->fill(m->header);
            else if (op == "launch") answer = state_->launch(m->header);
            else if (op == "sandbox_failed") {
                state_->start_error = engine_error(ErrorKind::Unsupported, "SCRIPT_SANDBOX",
                                                   m->header.value("message", std::string("the sandbox failed")));
                return false;
            } else if (op == "bye") {
                write_message(out_fd, {{"ok", true}});
                return true;
            } else
                answer = refusal(ErrorKind::Internal, "unknown request `" + op + "` (a pycuda from another version?)");
        } catch (const json::exception& e) {
            answer = refusal(ErrorKind::Internal, std::string("a malformed request: ") + e.what());
        }
        if (!write_message(out_fd, answer, out.data(), out.size())) return false;
    }
}

// ---- run_script ---------------------------------------------------------------------------------------------

namespace {

constexpr size_t kMaxOutput = 16u << 20;

// Reads a pipe to its end into `text` (at most kMaxOutput kept; `truncated` says when more came).
void drain(int fd, std::string& text, std::atomic<bool>& truncated) {
    char chunk[65536];
    for (;;) {
        const ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        const size_t room = kMaxOutput - std::min(kMaxOutput, text.size());
        text.append(chunk, std::min(room, size_t(n)));
        if (size_t(n) > room) truncated = true;
    }
    close(fd);
}

double default_time_limit() {
    if (const char* v = std::getenv("CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S"); v && std::atof(v) > 0) return std::atof(v);
    return 600;
}

// The folders a script's Python needs to read: the system's (interpreter, standard library, NumPy), the
// playground's Python side, the script's folder; nothing of /etc but what the loader and Python read.
FileAccessPolicy script_policy(const fs::path& interpreter, const fs::path& script_dir, const fs::path& scratch) {
    FileAccessPolicy p;
    p.label = "the script";
    for (const char* d : {"/usr", "/lib", "/lib64", "/bin", "/etc/ld.so.cache", "/etc/localtime",
                          "/etc/python3", "/etc/python3.11", "/etc/python3.12", "/etc/python3.13",
                          "/sys/devices/system/cpu", "/proc/cpuinfo", "/dev/urandom", "/dev/random"})
        p.read.emplace_back(d);
    std::error_code ec;
    const fs::path real = fs::canonical(interpreter, ec);
    if (!ec && real.has_parent_path() && real.parent_path().has_parent_path())
        p.read.push_back(real.parent_path().parent_path());  // a Python outside /usr: its prefix
    p.read.push_back(python_dir());
    p.read.push_back(script_dir);
    p.read_write.push_back(scratch);
    p.read_write.emplace_back("/dev/null");
    return p;
}

}  // namespace

Result<ScriptRunResult> run_script(const ScriptRequest& request) {
    std::error_code ec;
    const fs::path script = fs::absolute(request.path, ec);
    if (!fs::is_regular_file(script, ec))
        return make_error(ErrorKind::UserInput, "no such script: " + request.path.string(), "check the path");
    std::string interpreter;
    if (const char* v = std::getenv("CUDA_PLAYGROUND_PYTHON"); v && *v) interpreter = find_executable(v);
    else if (fs::exists("/usr/bin/python3", ec)) interpreter = "/usr/bin/python3";  // the system's, with its NumPy
    else interpreter = find_executable("python3");
    if (interpreter.empty())
        return make_error(ErrorKind::Unsupported, "no python3 found to run the script",
                          "install Python 3 and NumPy (Debian: apt-get install python3 python3-numpy), or name one "
                          "with CUDA_PLAYGROUND_PYTHON");
    interpreter = fs::absolute(interpreter).string();
    if (!fs::is_directory(python_dir() / "pycuda", ec))
        return make_error(ErrorKind::Io, "the playground's Python side is missing (" + python_dir().string() + ")",
                          "set CUDA_PLAYGROUND_PYTHON_DIR to the python/ folder of the playground's sources");

    auto made = make_backend(request.backend);
    if (!made) return made.error();
    Engine engine(std::move(made->backend));

    char scratch_template[] = "/tmp/cuda-playground-script-XXXXXX";
    if (!mkdtemp(scratch_template))
        return make_error(ErrorKind::Io, std::string("cannot make a scratch folder: ") + std::strerror(errno));
    const fs::path scratch = scratch_template;
    // The editor's text, when given, runs from a copy of the same name in the scratch folder (its own folder still
    // first on the import path, and readable).
    fs::path runs = script;
    std::optional<std::string> edited = request.source;
    if (edited) {  // the file itself when the text is the file's (its __file__ then is)
        std::ifstream in(script, std::ios::binary);
        std::ostringstream on_disk;
        if (in && on_disk << in.rdbuf() && on_disk.str() == *edited) edited.reset();
    }
    if (edited) {
        fs::create_directories(scratch / "script", ec);
        runs = scratch / "script" / script.filename();
        std::ofstream copy(runs, std::ios::binary);
        if (!copy || !copy.write(edited->data(), std::streamsize(edited->size()))) {
            fs::remove_all(scratch, ec);
            return make_error(ErrorKind::Io, "cannot write the script's copy in " + scratch.string());
        }
    }

    ScriptSpawn spawn;
    spawn.interpreter = interpreter;
    spawn.argv = {"python3", runs.string()};
    for (const std::string& a : request.args) spawn.argv.push_back(a);
    spawn.policy = script_policy(interpreter, script.parent_path(), scratch);
    spawn.env = {"PATH=/usr/local/bin:/usr/bin:/bin",
                 "HOME=" + scratch.string(),
                 "TMPDIR=" + scratch.string(),
                 "PYTHONPATH=" + python_dir().string() +
                     (edited ? ":" + script.parent_path().string() : std::string()),
                 "PYTHONDONTWRITEBYTECODE=1",
                 "PYTHONNOUSERSITE=1",
                 "PYTHONUNBUFFERED=1",
                 "CUDA_PLAYGROUND_SCRIPT_FD=" + std::to_string(kScriptSocketFd),
                 "OMP_NUM_THREADS=1",
                 "OPENBLAS_NUM_THREADS=1"};
    // LD_LIBRARY_PATH too: the script's process starts as this executable, which may need it to find its libraries.
    for (const char* keep : {"LANG", "LC_ALL", "LC_CTYPE", "TERM", "COLUMNS", "LD_LIBRARY_PATH"})
        if (const char* v = std::getenv(keep)) spawn.env.push_back(std::string(keep) + "=" + v);

    const auto started = std::chrono::steady_clock::now();
    auto proc = start_script_process(spawn);
    if (!proc) {
        fs::remove_all(scratch, ec);
        return proc.error();
    }
    ScriptRunResult result;
    result.backend = engine.device().backend;
    result.cpu_time = engine.device().backend == "cpu";
    ProgramRun& run = result.run;
    run.compiled = true;
    run.device = engine.device().name;
    std::atomic<bool> truncated{false};
    std::thread out_reader(drain, proc->out, std::ref(run.stdout_text), std::ref(truncated));
    std::thread err_reader(drain, proc->err, std::ref(run.stderr_text), std::ref(truncated));

    // The watchdog: past the time limit the script's whole process group is stopped, which ends the serving too.
    const double limit = request.time_limit_s > 0 ? request.time_limit_s : default_time_limit();
    std::mutex m;
    std::condition_variable cv;
    bool finished = false, stopped = false;
    std::thread watchdog([&] {
        std::unique_lock lock(m);
        if (!cv.wait_for(lock, std::chrono::duration<double>(limit), [&] { return finished; })) {
            stopped = true;
            kill(-proc->pid, SIGKILL);
        }
    });

    ScriptServer server(engine, runs.string(), request.capture_limit, request.changes);
    server.serve(proc->socket, proc->socket);
    close(proc->socket);
    int status = 0;
    while (waitpid(proc->pid, &status, 0) < 0 && errno == EINTR) {
    }
    kill(-proc->pid, SIGKILL);  // anything it left behind (it cannot start processes, but threads of a stray group)
    {
        std::lock_guard lock(m);
        finished = true;
    }
    cv.notify_all();
    watchdog.join();
    out_reader.join();
    err_reader.join();
    fs::remove_all(scratch, ec);

    run.launches = server.take_launches();
    run.capture_data = server.take_capture();
    run.diagnostics = server.take_diagnostics();
    if (edited) {  // the copy's name is the script's own in what the run shows
        for (Diagnostic& d : run.diagnostics)
            if (d.file == runs.string()) d.file = script.string();
        for (std::string* text : {&run.stdout_text, &run.stderr_text})
            for (size_t at = text->find(runs.string()); at != std::string::npos;
                 at = text->find(runs.string(), at + script.string().size()))
                text->replace(at, runs.string().size(), script.string());
    }
    run.output_truncated = truncated;
    run.run_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    if (stopped) {
        run.end = ProgramRun::End::Stopped;
        run.exit_status = 1;
        run.error = engine_error(ErrorKind::Hang, "SCRIPT_TIME_LIMIT",
                                 "the script did not finish within " + std::to_string(int(limit)) + " s and was stopped",
                                 "look for a loop that never ends, or allow more with --time-limit SECONDS");
    } else if (WIFEXITED(status)) {
        run.end = ProgramRun::End::Returned;
        run.exit_status = WEXITSTATUS(status);
        if (auto why = server.start_error()) {  // the sandbox could not be entered: nothing of the script ran
            run.end = ProgramRun::End::NotRun;
            run.error = *why;
        }
    } else if (WIFSIGNALED(status)) {
        run.end = WTERMSIG(status) == SIGABRT ? ProgramRun::End::Aborted : ProgramRun::End::Crashed;
        run.exit_status = 128 + WTERMSIG(status);
        run.error = engine_error(ErrorKind::Fault, "SCRIPT_CRASHED",
                                 std::string("the script's Python was killed by signal ") + strsignal(WTERMSIG(status)));
    }
    return result;
}

}  // namespace cp
