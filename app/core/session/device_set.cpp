// DeviceSet (device_set.h): the other devices' engines, opened on demand, and their compiled modules.
#include "core/session/device_set.h"

namespace cp {

DeviceSet::DeviceSet(Engine& first, int count, OpenEngine open)
    : first_(first), count_(std::max(1, count)), open_(std::move(open)) {}

DeviceSet::~DeviceSet() {
    for (auto& [index, compiled] : modules_) {
        auto it = others_.find(index);
        if (it != others_.end() && compiled.module) it->second->release({{}, {compiled.module}});
    }
}

Result<Engine*> DeviceSet::engine(int index) {
    if (index == 0) return &first_;
    if (index < 0 || index >= usable())
        return make_error(ErrorKind::UserInput, "there is no device " + std::to_string(index) +
                                                    " to run on: " + std::to_string(usable()) + " can be used here");
    auto it = others_.find(index);
    if (it != others_.end()) return it->second.get();
    // The set's devices are the machine's in order, the first engine's own device standing for its ordinal.
    const int first_ordinal = first_.device().ordinal;
    const int ordinal = index <= first_ordinal ? index - 1 : index;
    auto opened = open_(ordinal);
    if (!opened)
        return make_error(opened.error().kind,
                          "could not open device " + std::to_string(ordinal) + ": " + opened.error().message,
                          opened.error().hint);
    if (!(*opened)->capabilities().launches)
        return make_error(ErrorKind::Unsupported,
                          "device " + std::to_string(ordinal) + " cannot run kernels: " + (*opened)->device().notes);
    return others_.emplace(index, std::move(*opened)).first->second.get();
}

Result<ModuleId> DeviceSet::module(int index, const CompileRequest& request) {
    auto engine_of = engine(index);
    if (!engine_of) return engine_of.error();
    Compiled& kept = modules_[index];
    if (kept.module && kept.source == request.source) return kept.module;
    if (kept.module) (*engine_of)->release({{}, {kept.module}});
    kept = {};
    CompileResult compiled = (*engine_of)->compile(request);
    const std::string device = "device " + std::to_string((*engine_of)->device().ordinal);
    if (compiled.error)
        return make_error(compiled.error->kind, device + " could not load the kernel: " + compiled.error->message,
                          compiled.error->hint);
    if (!compiled.ok || !compiled.module)
        return make_error(ErrorKind::Compile, "the kernel compiled for the first device but not for " + device,
                          compiled.diagnostics.empty() ? std::string() : compiled.diagnostics.front().str());
    kept = {request.source, compiled.module};
    return kept.module;
}

}  // namespace cp
