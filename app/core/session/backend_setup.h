// Choosing the backend a front end runs on and opening the other devices a `devices:` file is split over:
// what the command line, the window and the tests all do, once, with the notes that explain an "auto" choice.
#pragma once

#include "core/engine/backend.h"
#include "core/engine/engine.h"
#include "core/session/device_set.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace cp {

class KernelSession;

// Makes the backend instead of the registry (a test's, or one under compute-sanitizer).
using MakeBackendFn = std::function<Result<std::unique_ptr<Backend>>()>;

struct BackendSetup {
    std::unique_ptr<Engine> engine;
    // For "auto": each backend earlier in the registry that cannot run here, and why (its Error).
    std::vector<std::pair<std::string, Error>> passed_over;
    // The devices a `devices:` split may use and how to open each other one: the same backend at another
    // ordinal. Empty `open_device` (a backend from MakeBackendFn, one that cannot launch): the split runs on
    // the first device alone.
    int device_count = 1;
    OpenEngine open_device;

    // One line per backend passed over: "the cuda backend cannot run here (no NVIDIA driver); running on the
    // cpu backend".
    std::vector<std::string> fallback_notes() const;
    // "cuda: no NVIDIA driver ...; ...", for the Device panel's "not used" row.
    std::string passed_over_text() const;
    // Hands the other devices to `session` (KernelSession::use_devices).
    void use_devices(KernelSession& session) const;
};

// `name`: "auto" or a registry name (--backend). `make`, when given, replaces the registry. An Error when no
// backend could be made (for "auto", why each failed).
Result<BackendSetup> set_up_backend(const std::string& name, const MakeBackendFn& make = {});

// As set_up_backend, but never fails: when no backend can run kernels, a compile-only one that says why, so
// an editor still gets the compiler's diagnostics (what the window does).
BackendSetup set_up_backend_or_compile_only(const std::string& name, const MakeBackendFn& make = {});

}  // namespace cp
