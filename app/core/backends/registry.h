// The one list of backends (names, descriptions, factories) and the doors the floors above use to make one:
// `--backend`, `info`, the window, the JSON and the docs read it from here. This module sits above the backends
// (core/cpu, core/cuda, core/remote, which never include each other) and below the session, the command line
// and the window, which make backends only through it (tests/arch/check_layers.py draws the house).
#pragma once

#include "core/engine/backend.h"
#include "core/engine/program_api.h"
#include "core/result.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace cp {

// One entry of the registry. Adding a backend: its own folder under core/, and one entry in registry.cpp.
struct BackendEntry {
    std::string name;         // what --backend takes and what `info`, the JSON and the window print
    std::string description;  // one line for `info`, --help and the Device panel
    // Makes the backend on device `device` (an ordinal, 0 first) of this kind, or an Error saying plainly why it
    // cannot be used here (no driver, no compiler, no such device...).
    std::function<Result<std::unique_ptr<Backend>>(int device)> factory;
    // The backend's worker started under compute-sanitizer's `tool`, its findings written to `log` when the
    // worker ends; empty for a backend that cannot be sanitized (the CPU backend checks every access itself).
    std::function<Result<std::unique_ptr<Backend>>(const std::string& tool, const std::string& log)> under_sanitizer;
    // Runs whole programs (a file with its own main(), core/engine/program_api.h); empty for a backend that cannot
    // yet.
    std::function<Result<std::unique_ptr<ProgramRunner>>()> programs = nullptr;
    Result<std::unique_ptr<Backend>> make(int device = 0) const { return factory(device); }
};

// In order of preference: `--backend auto` takes the first that can be made.
const std::vector<BackendEntry>& backend_registry();
const BackendEntry* find_backend(const std::string& name);
// "auto, cuda or cpu": the names --backend accepts, for help texts and messages.
std::string backend_choices_text();

// "auto" or a registry name; an Error naming the choices for anything else.
Result<std::string> check_backend_name(const std::string& name);

struct MadeBackend {
    std::unique_ptr<Backend> backend;
    // For "auto": each backend earlier in the registry that was passed over, and its Error ("no NVIDIA driver...").
    std::vector<std::pair<std::string, Error>> passed_over;
};
// `name` is "auto" or a registry name; `device` the ordinal of the device among that backend's (DeviceInfo::
// ordinal, ::device_count). For "auto", the Error lists why every backend failed.
Result<MadeBackend> make_backend(const std::string& name, int device = 0);

// Backend `name`'s worker under compute-sanitizer's `tool`, writing its findings to `log` as it ends (destroy the
// backend before reading it: core/session/sanitize.h). An Unsupported error for a backend that has no sanitized
// form (BackendEntry::under_sanitizer empty) or an unknown name.
Result<std::unique_ptr<Backend>> make_backend_under_sanitizer(const std::string& name, const std::string& tool,
                                                              const std::string& log);

// The backend `worker --stdio --backend NAME --sanitize TOOL` serves (core/remote's serve_stdio): backend NAME
// under this server's compute-sanitizer, writing to a fresh log on this server (`*log_path`). An Error that names
// what this server lacks (the sanitizer, the CUDA backend) and this host, for the app's message; the CPU backend
// is refused (it reports out-of-bounds accesses on its own). CUDA_PLAYGROUND_PRETEND_SANITIZER_LOG=FILE (tests on
// machines without a GPU): serves NAME unsanitized and takes FILE's text as the log, so the log's way back is
// still the real one.
Result<std::unique_ptr<Backend>> make_served_sanitized_backend(const std::string& backend_name, const std::string& tool,
                                                               const std::string& host, std::string* log_path);

// What runs a whole program for `name` ("auto" or a registry name): the backend's ProgramRunner, and the name of the
// backend that runs it. "auto" takes the first backend that runs programs; a backend that cannot is an Unsupported
// error naming the one that can.
struct MadeProgramRunner {
    std::unique_ptr<ProgramRunner> runner;
    std::string backend;
};
Result<MadeProgramRunner> make_program_runner(const std::string& name);

}  // namespace cp
