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

}  // namespace cp
