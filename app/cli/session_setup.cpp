// open_session (session_setup.h).
#include "cli/session_setup.h"

#include "cli/commands.h"
#include "core/kernel_file/kernel_file.h"
#include "core/kernel_file/user_dirs.h"
#include "core/remote/remote_backend.h"
#include "core/session/backend_setup.h"

#include <iostream>

namespace cp::cli {

namespace {

// A library lesson the window has an edited copy of: this runs the stock file, and says so with the copy's path.
void note_edited_copy(const std::filesystem::path& file, const std::string& stock) {
    const std::filesystem::path copy = edited_copy_of(file);
    std::error_code ec;
    if (copy.empty() || !std::filesystem::is_regular_file(copy, ec)) return;
    auto edited = load_kernel_file(copy);
    if (!edited || edited->source == stock) return;
    std::cerr << "note: this runs the library's " << file.filename().string() << "; your edited copy from the window "
              << "is " << copy.string() << " (run it with `cuda-playground run " << copy.string() << "`)\n";
}

}  // namespace

Result<OpenedSession> open_session(const std::string& path, const LaunchOptions& launch, const MakeBackendFn& make) {
    auto file = load_kernel_file(find_kernel_path(path));
    if (!file) return file.error();
    note_edited_copy(file->path, file->source);
    if (!file->spec.has_metadata) {
        return make_error(ErrorKind::Metadata,
                          file->path.filename().string() +
                              " has no /*@playground ... */ metadata header, so its buffers and "
                              "launch configuration are unknown",
                          "`cuda-playground describe " + file->path.string() + "` writes one from its signature; or add it by hand (see kernels/FORMAT.md), or use `cuda-playground compile` to compile it only");
    }
    if (has_errors(file->diagnostics)) {
        for (const auto& d : file->diagnostics) std::cerr << d.str() << "\n";
        return make_error(ErrorKind::Metadata, "the kernel file has errors (listed above)", "fix them, then run again");
    }
    // The backend, and for a `devices:` file the other devices of it (core/session/backend_setup.h, as the window).
    // --remote: the backend is a worker on the server (its own `--backend` there); a `devices:` split runs
    // on its first device alone.
    MakeBackendFn chosen = make;
    if (!chosen && !launch.remote.empty()) {
        RemoteOptions remote = remote_options_from_environment(launch.backend);
        remote.prefix = launch.remote;
        chosen = [remote] { return make_remote_backend(remote); };
    }
    auto setup = set_up_backend(launch.backend, chosen);
    if (!setup) return setup.error();
    for (const std::string& note : setup->fallback_notes()) std::cerr << "note: " << note << "\n";
    OpenedSession opened;
    opened.engine = std::move(setup->engine);
    opened.session = std::make_unique<KernelSession>(*opened.engine);
    opened.session->set_kernel(std::move(*file));
    setup->use_devices(*opened.session);
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
