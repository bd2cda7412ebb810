// What `run` and `sweep` share: FILE to a kernel, a backend (noting the ones passed over), and a session with
// the user's --set/--block/--grid applied, each mistake as an Error that says how to fix it.
#pragma once

#include "cli/args.h"
#include "core/engine/engine.h"
#include "core/session/backend_setup.h"
#include "core/session/session.h"

#include <functional>
#include <memory>

namespace cp::cli {

struct OpenedSession {
    std::unique_ptr<Engine> engine;
    std::unique_ptr<KernelSession> session;
};

// `make`: the backend to run on instead of --backend's (e.g. one under compute-sanitizer).
Result<OpenedSession> open_session(const std::string& file, const LaunchOptions& launch, const MakeBackendFn& make = {});

}  // namespace cp::cli
