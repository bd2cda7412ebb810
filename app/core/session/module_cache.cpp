// ModuleCache: one keyed cache for the session's compiles (module_cache.h).
#include "core/session/module_cache.h"

namespace cp {

std::string ModuleCache::key_of(const CompileRequest& r) {
    std::string key;
    key.reserve(r.source.size() + r.path.size() + 64);
    const auto field = [&key](const std::string& s) {
        key += std::to_string(s.size());
        key += ':';
        key += s;
    };
    field(r.path);
    field(r.kernel_name);
    for (const auto& k : r.also_kernels) field("also " + k);
    for (const auto& o : r.extra_options) field("option " + o);
    key += r.load ? 'L' : 'l';
    key += r.instrument_trace ? 'T' : 't';
    key += r.instrument_memory ? 'M' : 'm';
    key += r.instrument_debug ? 'D' : 'd';
    field(r.source);
    return key;
}

void ModuleCache::release(Engine& engine, Entry& entry) {
    if (entry.result.module != 0 && !entry.borrowed) engine.release({{}, {entry.result.module}});
    entry.result.module = 0;
}

const CompileResult& ModuleCache::get(Engine& engine, const std::string& slot, CompileRequest request, bool* compiled) {
    std::string key = key_of(request);
    auto it = slots_.find(slot);
    if (it != slots_.end() && !it->second.borrowed && it->second.key == key) {
        if (compiled) *compiled = false;
        return it->second.result;
    }
    if (it != slots_.end()) release(engine, it->second);
    Entry& entry = slots_[slot];
    entry.borrowed = false;
    entry.source = request.source;
    entry.result = engine.compile(std::move(request));
    entry.key = std::move(key);
    if (compiled) *compiled = true;
    return entry.result;
}

const CompileResult& ModuleCache::lend(Engine& engine, const std::string& slot, const std::string& source, CompileResult lent) {
    auto it = slots_.find(slot);
    if (it != slots_.end()) release(engine, it->second);
    Entry& entry = slots_[slot];
    entry.result = std::move(lent);
    entry.key.clear();  // never equal to a compile's key: the next get() compiles a module of its own
    entry.source = source;
    entry.borrowed = true;
    return entry.result;
}

const CompileResult* ModuleCache::find(const std::string& slot) const {
    auto it = slots_.find(slot);
    return it == slots_.end() ? nullptr : &it->second.result;
}

const std::string* ModuleCache::source_of(const std::string& slot) const {
    auto it = slots_.find(slot);
    return it == slots_.end() ? nullptr : &it->second.source;
}

bool ModuleCache::borrowed(const std::string& slot) const {
    auto it = slots_.find(slot);
    return it != slots_.end() && it->second.borrowed;
}

void ModuleCache::drop(Engine& engine, const std::string& prefix) {
    std::vector<ModuleId> modules;
    for (auto it = slots_.begin(); it != slots_.end();) {
        if (it->first.rfind(prefix, 0) != 0) {
            ++it;
            continue;
        }
        if (it->second.result.module != 0 && !it->second.borrowed) modules.push_back(it->second.result.module);
        it = slots_.erase(it);
    }
    if (!modules.empty()) engine.release({{}, modules});
}

}  // namespace cp
