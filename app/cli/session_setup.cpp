// open_session (session_setup.h).
#include "cli/session_setup.h"

#include "cli/commands.h"
#include "core/kernel_file/kernel_file.h"

#include <iostream>

namespace cp::cli {

Result<OpenedSession> open_session(const std::string& path, const LaunchOptions& launch,
                                   const std::function<Result<std::unique_ptr<Backend>>()>& make) {
    auto file = load_kernel_file(find_kernel_path(path));
    if (!file) return file.error();
    if (!file->spec.has_metadata) {
        return make_error(ErrorKind::Metadata,
                          file->path.filename().string() +
                              " has no /*@playground ... */ metadata header, so its buffers and "
                              "launch configuration are unknown",
                          "add a header (see kernels/FORMAT.md), or use `cuda-playground compile` to compile it only");
    }
    if (has_errors(file->diagnostics)) {
        for (const auto& d : file->diagnostics) std::cerr << d.str() << "\n";
        return make_error(ErrorKind::Metadata, "the kernel file has errors (listed above)", "fix them, then run again");
    }
    Result<MadeBackend> made = make ? [&]() -> Result<MadeBackend> {
        auto backend = make();
        if (!backend) return backend.error();
        return MadeBackend{std::move(*backend), {}};
    }()
                                    : make_backend(launch.backend);
    if (!made) return made.error();
    for (const auto& [name, why] : made->passed_over) {
        std::cerr << "note: the " << name << " backend cannot run here (" << why << "); running on the "
                  << made->backend->info().device.backend << " backend\n";
    }
    OpenedSession opened;
    opened.engine = std::make_unique<Engine>(std::move(made->backend));
    opened.session = std::make_unique<KernelSession>(*opened.engine);
    opened.session->set_kernel(std::move(*file));
    // A `devices:` file runs on every device of the same backend, each opened like this one (not a backend
    // made by `make`, e.g. under compute-sanitizer: that one runs the split alone).
    if (!make) {
        const DeviceInfo& device = opened.engine->device();
        opened.session->use_devices(device.device_count, [backend = device.backend](int ordinal) -> Result<std::unique_ptr<Engine>> {
            auto other = make_backend(backend, ordinal);
            if (!other) return other.error();
            return std::make_unique<Engine>(std::move(other->backend));
        });
    }
    // The same checks and messages as the window's --set/--block/--grid (core/session/run_choices.h).
    RunChoices choices;
    choices.block = launch.block;
    choices.grid = launch.grid;
    choices.until_step = launch.until_step;
    for (const auto& [name, value] : launch.sets) {
        auto ok = apply_set(opened.session->kernel(), choices, name, value);
        if (!ok) return ok.error();
    }
    opened.session->set_choices(std::move(choices));
    return opened;
}

}  // namespace cp::cli
