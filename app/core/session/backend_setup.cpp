// set_up_backend and its notes (backend_setup.h).
#include "core/session/backend_setup.h"

#include "core/session/session.h"
#include "core/backends/registry.h"
#include "core/toolkit/compile_only_backend.h"

namespace cp {

namespace {

OpenEngine same_backend_opener(const std::string& backend) {
    return [backend](int ordinal) -> Result<std::unique_ptr<Engine>> {
        auto other = make_backend(backend, ordinal);
        if (!other) return other.error();
        return std::make_unique<Engine>(std::move(other->backend));
    };
}

}  // namespace

std::vector<std::string> BackendSetup::fallback_notes() const {
    std::vector<std::string> notes;
    const std::string chosen = engine ? engine->device().backend : std::string();
    // The bare reason (Error::why): the message around it says what the note says in its own words.
    for (const auto& [name, error] : passed_over)
        notes.push_back("the " + name + " backend cannot run here (" + error.why() + "); running on the " + chosen +
                        " backend");
    return notes;
}

std::string BackendSetup::passed_over_text() const {
    std::string text;
    for (const auto& [name, error] : passed_over) text += (text.empty() ? "" : "; ") + name + ": " + error.message;
    return text;
}

void BackendSetup::use_devices(KernelSession& session) const {
    if (open_device) session.use_devices(device_count, open_device);
}

Result<BackendSetup> set_up_backend(const std::string& name, const MakeBackendFn& make) {
    BackendSetup setup;
    std::unique_ptr<Backend> backend;
    if (make) {
        auto made = make();
        if (!made) return made.error();
        backend = std::move(*made);
    } else {
        auto made = make_backend(name);
        if (!made) return made.error();
        backend = std::move(made->backend);
        setup.passed_over = std::move(made->passed_over);
    }
    setup.engine = std::make_unique<Engine>(std::move(backend));
    const DeviceInfo& device = setup.engine->device();
    setup.device_count = device.device_count;
    // Only a registry backend can be opened again at another ordinal; one made by `make` (e.g. under
    // compute-sanitizer) runs the split alone.
    if (!make && setup.engine->capabilities().launches) setup.open_device = same_backend_opener(device.backend);
    return setup;
}

BackendSetup set_up_backend_or_compile_only(const std::string& name, const MakeBackendFn& make) {
    auto setup = set_up_backend(name, make);
    if (setup) return std::move(*setup);
    BackendSetup fallback;
    fallback.engine = std::make_unique<Engine>(make_compile_only_backend(setup.error().message));
    fallback.device_count = 1;
    return fallback;
}

}  // namespace cp
