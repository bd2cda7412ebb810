// JSON for the CPU worker's own messages (the engine's requests have theirs in engine_wire.cpp). Readers
// throw nlohmann::json exceptions on malformed input; callers treat that as a broken worker.
#include "core/cpu/cpu_worker_protocol.h"

namespace cp {

using nlohmann::json;

json facts_json(const ModuleFacts& f) {
    return {
        {"tls_bytes", f.tls_bytes}, {"load_base", f.load_base}, {"code_begin", f.code_begin}, {"code_end", f.code_end}};
}

ModuleFacts facts_from(const json& j) {
    ModuleFacts f;
    f.tls_bytes = j.at("tls_bytes").get<uint64_t>();
    f.load_base = j.at("load_base").get<uint64_t>();
    f.code_begin = j.at("code_begin").get<uint64_t>();
    f.code_end = j.at("code_end").get<uint64_t>();
    return f;
}

json site_json(const std::optional<CodeSite>& site) {
    if (!site) return nullptr;
    return {{"module", site->module}, {"offsets", site->offsets}, {"in_function", site->in_function}};
}

std::optional<CodeSite> site_from(const json& j) {
    if (j.is_null()) return std::nullopt;
    CodeSite s;
    s.module = j.at("module").get<ModuleId>();
    s.offsets = j.at("offsets").get<std::vector<uint64_t>>();
    s.in_function = j.at("in_function").get<std::string>();
    return s;
}

json error_json(const std::optional<EngineError>& e) {
    if (!e) return nullptr;
    return {{"name", e->name}, {"message", e->message}, {"hint", e->hint}, {"kind", error_kind_name(e->kind)}};
}

std::optional<EngineError> error_from(const json& j) {
    if (j.is_null()) return std::nullopt;
    return engine_error(error_kind_in(j, ErrorKind::Unknown), j.at("name").get<std::string>(),
                        j.at("message").get<std::string>(), j.at("hint").get<std::string>());
}

json error_json(const Error& e) {
    return {{"message", e.message}, {"hint", e.hint}, {"kind", error_kind_name(e.kind)}};
}

ErrorKind error_kind_in(const json& j, ErrorKind fallback) {
    if (!j.is_object() || !j.contains("kind")) return fallback;
    // Both ends are the same build (the greeting checks it), so an unknown name is a bug: say so.
    return error_kind_from_name(j.at("kind").get<std::string>()).value_or(ErrorKind::Internal);
}

json host_call_json(const HostCallRequest& r) {
    json args = json::array();
    for (const KernelArg& a : r.args) {
        std::vector<int> bytes;
        for (std::byte b : a.scalar) bytes.push_back(int(b));
        args.push_back({{"name", a.name}, {"buffer", a.buffer}, {"scalar", bytes}});
    }
    return {{"op", "call"}, {"module", r.module}, {"symbol", r.symbol}, {"args", args}};
}

HostCallRequest host_call_from(const json& j) {
    HostCallRequest r;
    r.module = j.at("module").get<ModuleId>();
    r.symbol = j.at("symbol").get<std::string>();
    for (const json& a : j.at("args")) {
        KernelArg arg;
        arg.name = a.at("name").get<std::string>();
        arg.buffer = a.at("buffer").get<BufferId>();
        for (const json& b : a.at("scalar")) arg.scalar.push_back(std::byte(b.get<int>()));
        r.args.push_back(std::move(arg));
    }
    return r;
}

namespace {
json dim3_json(const Dim3& d) { return json::array({d.x, d.y, d.z}); }
Dim3 dim3_from(const json& j) { return Dim3{j.at(0).get<uint32_t>(), j.at(1).get<uint32_t>(), j.at(2).get<uint32_t>()}; }
}  // namespace

json program_request_json(const ProgramRunRequest& r) {
    json j = {{"op", "program"},
              {"module", r.module},
              {"argv", r.argv},
              {"buffer_align", r.buffer_align},
              {"memory_limit", r.memory_limit},
              {"capture_limit", r.capture_limit}};
    if (!r.changes.empty()) {
        json changes = json::array();
        for (const auto& [index, c] : r.changes) {
            json scalars = json::array();
            for (const auto& [arg, bytes] : c.scalars)
                scalars.push_back({arg, hex_of_bytes(bytes.data(), bytes.size(), bytes.size())});
            changes.push_back({{"index", index},
                               {"grid", c.grid ? dim3_json(*c.grid) : json()},
                               {"block", c.block ? dim3_json(*c.block) : json()},
                               {"scalars", scalars}});
        }
        j["changes"] = changes;
    }
    if (r.device_image) {  // its maps; the cubin goes as the message's blob
        auto pairs = [](const std::map<uint64_t, std::string>& m) {
            json a = json::array();
            for (const auto& [offset, name] : m) a.push_back({offset, name});
            return a;
        };
        j["device"] = {{"arch", r.device_image->arch},
                       {"kernels", pairs(r.device_image->kernels)},
                       {"symbols", pairs(r.device_image->symbols)},
                       {"kernel_names", pairs(r.device_image->kernel_names)},
                       {"managed", r.device_image->managed}};
    }
    return j;
}

ProgramRunRequest program_request_from(const json& j) {
    ProgramRunRequest r;
    if (j.contains("changes"))
        for (const json& c : j.at("changes")) {
            ProgramLaunchChange change;
            if (!c.at("grid").is_null()) change.grid = dim3_from(c.at("grid"));
            if (!c.at("block").is_null()) change.block = dim3_from(c.at("block"));
            for (const json& s : c.at("scalars"))
                change.scalars[s.at(0).get<size_t>()] = bytes_of_hex(s.at(1).get<std::string>());
            r.changes[c.at("index").get<size_t>()] = std::move(change);
        }
    if (j.contains("device")) {
        auto image = std::make_shared<ProgramDeviceImage>();
        const json& d = j.at("device");
        image->arch = d.at("arch").get<std::string>();
        auto read = [&](const char* key, std::map<uint64_t, std::string>& m) {
            for (const json& p : d.at(key)) m[p.at(0).get<uint64_t>()] = p.at(1).get<std::string>();
        };
        read("kernels", image->kernels);
        read("symbols", image->symbols);
        read("kernel_names", image->kernel_names);
        image->managed = d.at("managed").get<std::set<uint64_t>>();
        r.device_image = std::move(image);
    }
    r.module = j.at("module").get<ModuleId>();
    r.argv = j.at("argv").get<std::vector<std::string>>();
    r.buffer_align = j.at("buffer_align").get<size_t>();
    r.memory_limit = j.at("memory_limit").get<uint64_t>();
    r.capture_limit = j.at("capture_limit").get<uint64_t>();
    return r;
}

json program_result_json(const ProgramRunResult& r) {
    return {{"returned", r.returned}, {"exit_status", r.exit_status}, {"ms", r.ms},
            {"error", error_json(r.error)}, {"site", site_json(r.site)}};
}

ProgramRunResult program_result_from(const json& j) {
    ProgramRunResult r;
    r.returned = j.at("returned").get<bool>();
    r.exit_status = j.at("exit_status").get<int>();
    r.ms = j.at("ms").get<double>();
    r.error = error_from(j.at("error"));
    r.site = site_from(j.at("site"));
    return r;
}

json launch_record_json(const ProgramLaunchRecord& r) {
    json j = {{"kernel", r.kernel}, {"line", r.line}, {"grid", dim3_json(r.grid)}, {"block", dim3_json(r.block)},
              {"shared_bytes", r.shared_bytes}, {"stream", r.stream}, {"ms", r.ms}, {"cuda_error", r.cuda_error},
              {"error", error_json(r.error)}, {"site", site_json(r.site)}, {"running", r.running},
              {"entry", r.entry}, {"changed", r.changed}};
    json args = json::array(), buffers = json::array();
    for (const ProgramArg& a : r.args)
        args.push_back({{"size", a.size}, {"pointer", a.pointer}, {"bytes", a.bytes_hex}, {"buffer", a.buffer},
                        {"offset", a.offset}});
    for (const ProgramBuffer& b : r.buffers)
        buffers.push_back({{"name", b.name}, {"bytes", b.bytes}, {"captured", b.captured}, {"before_at", b.before_at},
                           {"after_at", b.after_at}, {"has_after", b.has_after}});
    j["args"] = args;
    j["buffers"] = buffers;
    if (r.error && r.error->thread) j["thread"] = dim3_json(*r.error->thread);
    if (r.error && r.error->block) j["block_of_thread"] = dim3_json(*r.error->block);
    if (r.error) j["error_line"] = r.error->line;
    if (!r.file.empty()) j["file"] = r.file;
    return j;
}

ProgramLaunchRecord launch_record_from(const json& j) {
    ProgramLaunchRecord r;
    r.kernel = j.at("kernel").get<std::string>();
    r.line = j.at("line").get<int>();
    r.file = j.value("file", std::string());
    r.grid = dim3_from(j.at("grid"));
    r.block = dim3_from(j.at("block"));
    r.shared_bytes = j.at("shared_bytes").get<uint64_t>();
    r.stream = j.at("stream").get<uint64_t>();
    r.ms = j.at("ms").get<double>();
    r.cuda_error = j.at("cuda_error").get<int>();
    r.error = error_from(j.at("error"));
    r.site = site_from(j.at("site"));
    r.running = j.at("running").get<bool>();
    r.entry = j.at("entry").get<uint64_t>();
    r.changed = j.at("changed").get<bool>();
    for (const json& a : j.at("args"))
        r.args.push_back(ProgramArg{a.at("size").get<uint32_t>(), a.at("pointer").get<bool>(),
                                    a.at("bytes").get<std::string>(), a.at("buffer").get<std::string>(),
                                    a.at("offset").get<uint64_t>()});
    for (const json& b : j.at("buffers"))
        r.buffers.push_back(ProgramBuffer{b.at("name").get<std::string>(), b.at("bytes").get<uint64_t>(),
                                          b.at("captured").get<bool>(), b.at("before_at").get<uint64_t>(),
                                          b.at("after_at").get<uint64_t>(), b.at("has_after").get<bool>(), {}, {}});
    if (r.error && j.contains("thread")) r.error->thread = dim3_from(j["thread"]);
    if (r.error && j.contains("block_of_thread")) r.error->block = dim3_from(j["block_of_thread"]);
    if (r.error && j.contains("error_line")) r.error->line = j["error_line"].get<int>();
    return r;
}

}  // namespace cp
