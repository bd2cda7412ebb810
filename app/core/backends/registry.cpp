// The one list of backends: names, descriptions and factories, and the functions that choose and make one from
// it. A new backend lives in its own folder under core/ and adds one entry below.
#include "core/backends/registry.h"

#include "core/backends/gpu_program_worker.h"
#include "core/cpu/cpu_backend.h"
#include "core/cpu/program_runner.h"
#include "core/cuda/cuda_backend_factory.h"
#include "core/toolkit/sanitizer_report.h"

#include <unistd.h>
#include <cstdlib>
#include <filesystem>

namespace cp {

const std::vector<BackendEntry>& backend_registry() {
    static const std::vector<BackendEntry> registry = {
        {"cuda", "an NVIDIA GPU: NVRTC and the CUDA driver API, in a worker process that is replaced after a fault",
         [](int device) { return make_cuda_backend(device); },
         [](const std::string& tool, const std::string& log) { return make_cuda_backend_under_sanitizer(tool, log); },
         [] { return make_gpu_program_runner(); }},
        {"cpu", "the CPU emulator: the same source built by the host compiler, GPU threads run as fibers",
         [](int device) { return make_cpu_backend(device); }, nullptr,
         [] { return make_cpu_program_runner_from_env(); }},
    };
    return registry;
}

const BackendEntry* find_backend(const std::string& name) {
    for (const BackendEntry& e : backend_registry())
        if (e.name == name) return &e;
    return nullptr;
}

std::string backend_choices_text() {
    const auto& registry = backend_registry();
    std::string text = "auto";
    for (size_t i = 0; i < registry.size(); ++i) text += (i + 1 == registry.size() ? " or " : ", ") + registry[i].name;
    return text;
}

Result<std::string> check_backend_name(const std::string& name) {
    if (name == "auto" || find_backend(name)) return name;
    return make_error(ErrorKind::UserInput, "unknown backend `" + name + "`", "use " + backend_choices_text());
}

Result<MadeBackend> make_backend(const std::string& name, int device) {
    if (auto known = check_backend_name(name); !known) return known.error();
    if (device < 0)
        return make_error(ErrorKind::UserInput,
                          "there is no device " + std::to_string(device) + ": devices are numbered from 0",
                          "use 0 for the first device");
    MadeBackend made;
    if (name != "auto") {
        auto backend = find_backend(name)->make(device);
        if (!backend) return backend.error();
        made.backend = std::move(*backend);
        return made;
    }
    std::string reasons, hint;
    for (const BackendEntry& e : backend_registry()) {
        auto backend = e.make(device);
        if (backend) {
            made.backend = std::move(*backend);
            return made;
        }
        made.passed_over.emplace_back(e.name, backend.error());
        reasons += (reasons.empty() ? "" : "; ") + e.name + ": " + backend.error().message;
        if (hint.empty()) hint = backend.error().hint;
    }
    return make_error(ErrorKind::Unsupported, "no backend can run kernels here (" + reasons + ")", hint);
}

Result<std::unique_ptr<Backend>> make_backend_under_sanitizer(const std::string& name, const std::string& tool,
                                                              const std::string& log) {
    // "auto": the first backend that has a sanitized form.
    const BackendEntry* entry = nullptr;
    for (const BackendEntry& e : backend_registry())
        if (name == "auto" ? e.under_sanitizer != nullptr : e.name == name) {
            entry = &e;
            break;
        }
    if (!entry) return make_error(ErrorKind::UserInput, "unknown backend `" + name + "`", "use " + backend_choices_text());
    if (!entry->under_sanitizer)
        return make_error(ErrorKind::Unsupported, "the " + name + " backend cannot run under compute-sanitizer",
                          "compute-sanitizer runs kernels on an NVIDIA GPU: use --backend cuda");
    return entry->under_sanitizer(tool, log);
}

namespace {

std::string fresh_log_path() {
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
    if (ec) dir = "/tmp";
    const auto log = dir / ("cuda-playground-remote-sanitizer-" + std::to_string(::getpid()) + ".log");
    std::filesystem::remove(log, ec);
    return log.string();
}

}  // namespace

Result<std::unique_ptr<Backend>> make_served_sanitized_backend(const std::string& backend_name, const std::string& tool,
                                                               const std::string& host, std::string* log_path) {
    if (!is_sanitizer_tool(tool))
        return make_error(ErrorKind::UserInput,
                          "--sanitize takes memcheck, racecheck, synccheck or initcheck, not `" + tool + "`",
                          "memcheck finds out-of-bounds accesses; racecheck shared-memory races; synccheck barrier "
                          "misuse; initcheck reads of memory never written");
    *log_path = fresh_log_path();
    if (const char* pretend = std::getenv("CUDA_PLAYGROUND_PRETEND_SANITIZER_LOG"); pretend && *pretend) {
        std::error_code ec;
        std::filesystem::copy_file(pretend, *log_path, std::filesystem::copy_options::overwrite_existing, ec);
        auto made = make_backend(backend_name);
        if (!made) return made.error();
        return std::move(made->backend);
    }
    if (backend_name == "cpu")
        return make_error(ErrorKind::Unsupported,
                          "--sanitize runs compute-sanitizer, which needs the CUDA backend, and this worker on " +
                              host + " was asked for the CPU backend",
                          "on the CPU backend out-of-bounds accesses are always reported; drop --backend cpu");
    // Looked for on the server, where the kernels run: the app's machine may have no toolkit at all.
    if (find_compute_sanitizer().empty())
        return make_error(ErrorKind::Unsupported,
                          "compute-sanitizer was not found on " + host +
                              " (looked in $CUDA_PLAYGROUND_COMPUTE_SANITIZER, $CUDA_HOME/bin, /usr/local/cuda/bin and "
                              "PATH there)",
                          "install the CUDA toolkit's sanitizer on the server (Debian/Ubuntu: apt-get install "
                          "cuda-sanitizer-13-0), or set CUDA_PLAYGROUND_COMPUTE_SANITIZER there, e.g. --remote \"ssh "
                          "gpu01 env CUDA_PLAYGROUND_COMPUTE_SANITIZER=/opt/cuda/bin/compute-sanitizer\"");
    auto made = make_backend_under_sanitizer(backend_name, tool, *log_path);
    if (!made)
        return make_error(
            ErrorKind::Unsupported,
            "--sanitize needs the CUDA backend, and it cannot run on " + host + ": " + made.error().message,
            made.error().hint.empty() ? "run on a server with an NVIDIA GPU" : made.error().hint);
    return made;
}

Result<MadeProgramRunner> make_program_runner(const std::string& name) {
    if (auto known = check_backend_name(name); !known) return known.error();
    std::string can, passed_over;
    for (const BackendEntry& e : backend_registry())
        if (e.programs) can += (can.empty() ? "" : ", ") + e.name;
    for (const BackendEntry& e : backend_registry()) {
        if (name != "auto" && e.name != name) continue;
        if (!e.programs) {
            if (name == "auto") continue;
            return make_error(ErrorKind::Unsupported,
                              "the " + e.name + " backend does not run whole programs yet",
                              can.empty() ? std::string("no backend here runs them")
                                          : "--backend " + can.substr(0, can.find(',')) +
                                                " runs it as written, with every check of its launches");
        }
        auto runner = e.programs();
        if (!runner) {
            if (name == "auto") {  // no GPU here: the next backend
                passed_over += (passed_over.empty() ? "" : "; ") + e.name + ": " + runner.error().message;
                continue;
            }
            return runner.error();
        }
        return MadeProgramRunner{std::move(*runner), e.name};
    }
    return make_error(ErrorKind::Unsupported, "no backend here runs whole programs" +
                                                  (passed_over.empty() ? std::string() : " (" + passed_over + ")"));
}

}  // namespace cp
