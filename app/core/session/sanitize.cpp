// Sanitized runs: see sanitize.h.
#include "core/session/sanitize.h"

#include "core/backends/registry.h"
#include "core/kernel_file/kernel_spec.h"
#include "core/session/session.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace cp {

const std::vector<std::string>& sanitizer_tools() {
    static const std::vector<std::string> tools = {"memcheck", "racecheck", "synccheck", "initcheck"};
    return tools;
}

std::string sanitizer_tool_purpose(const std::string& tool) {
    if (tool == "memcheck") return "out-of-bounds and misaligned accesses";
    if (tool == "racecheck") return "shared-memory races between threads";
    if (tool == "synccheck") return "barriers (__syncthreads) used wrongly";
    if (tool == "initcheck") return "reads of device memory never written";
    return "";
}

std::string sanitize_unavailable_reason(const DeviceInfo& device) {
    static const std::string needs = "Sanitize needs the CUDA backend and compute-sanitizer (CUDA toolkit); ";
    if (!device.caps.launches) return needs + "nothing can run kernels here.";
    if (device.caps.sanitizer) return "";
    // A remote backend: the server's worker runs its own compute-sanitizer (remote_sanitize.h) and, when it has
    // none or serves the CPU backend, refuses in its greeting with what it lacks: the server decides, not here.
    if (!device.where.empty()) return "";
    if (!device.caps.gpu)
        return needs + "this runs on the " + (device.backend.empty() ? std::string("CPU") : device.backend) +
               " backend (no NVIDIA GPU in use). The CPU backend reports out-of-bounds accesses on its own.";
    if (!device.caps.sanitizer)
        return needs + "compute-sanitizer was not found (looked in $CUDA_PLAYGROUND_COMPUTE_SANITIZER, $CUDA_HOME/bin, "
                       "/usr/local/cuda/bin and PATH). Install the toolkit's sanitizer (cuda-sanitizer-13-0) or set "
                       "CUDA_PLAYGROUND_COMPUTE_SANITIZER to its path.";
    return "";
}

Result<SanitizerSetup> prepare_sanitizer(const std::string& tool, bool find_sanitizer) {
    if (!is_sanitizer_tool(tool))
        return make_error(ErrorKind::UserInput,
                          "--sanitize takes memcheck, racecheck, synccheck or initcheck, not `" + tool + "`",
                          "memcheck finds out-of-bounds accesses; racecheck shared-memory races; synccheck barrier "
                          "misuse; initcheck reads of memory never written");
    if (find_sanitizer && find_compute_sanitizer().empty())
        return make_error(ErrorKind::Unsupported,
                          "compute-sanitizer was not found (looked in $CUDA_PLAYGROUND_COMPUTE_SANITIZER, "
                          "$CUDA_HOME/bin, /usr/local/cuda/bin and PATH)",
                          "install the CUDA toolkit's sanitizer (Debian/Ubuntu: apt-get install cuda-sanitizer-13-0), "
                          "or set CUDA_PLAYGROUND_COMPUTE_SANITIZER to its path");
    // One log per sanitized run: the window may sanitize again while an older log is being read.
    static std::atomic<int> serial{0};
    const std::filesystem::path log = std::filesystem::temp_directory_path() /
                                      ("cuda-playground-sanitizer-" + std::to_string(::getpid()) + "-" +
                                       std::to_string(++serial) + ".log");
    std::error_code ec;
    std::filesystem::remove(log, ec);
    return SanitizerSetup{tool, log.string()};
}

Result<std::unique_ptr<Backend>> make_sanitized_backend(const SanitizerSetup& setup, const SanitizedBackendFactory& factory) {
    if (factory) return factory(setup.tool, setup.log_path);
    return make_backend_under_sanitizer("cuda", setup.tool, setup.log_path);
}

SanitizerSummary finish_sanitizing(const std::string& log_path, const KernelFile& file, RunReport& report) {
    SanitizerSummary summary = parse_sanitizer_log(take_sanitizer_log(log_path));
    std::vector<BufferPlacement> placements;
    for (const auto& b : file.spec.buffers) {
        auto address = report.device_addresses.find(b.name);
        if (address == report.device_addresses.end() || !report.resolved) continue;
        auto count = report.resolved->buffer_counts.find(b.name);
        if (count == report.resolved->buffer_counts.end()) continue;
        const uint32_t element = uint32_t(elem_info(b.type).size);
        placements.push_back({b.name, address->second, count->second * element, element});
    }
    attribute_findings(summary.findings, placements);
    // memcheck stops the kernel at the first error it finds, so the launch fails; say that instead of the
    // driver's "stopped with an exception", which would send the user to compute-sanitizer again.
    const auto first = std::find_if(summary.findings.begin(), summary.findings.end(),
                                    [](const SanitizerFinding& f) { return f.thread.has_value(); });
    if (first != summary.findings.end() && report.error && report.failed_stage == RunStage::Launch) {
        report.error->message = "compute-sanitizer stopped kernel `" + report.kernel + "` at the first error it found: " +
                                first->message();
        report.error->hint = first->line > 0 ? "fix line " + std::to_string(first->line) + ", then run again"
                                             : "fix the access it names, then run again";
    }
    for (const SanitizerFinding& f : summary.findings) {
        if (f.line <= 0) continue;
        report.diagnostics.push_back(
            Diagnostic{file.path.string(), f.line, 0, Severity::Error, f.message(), DiagnosticOrigin::Sanitizer});
    }
    return summary;
}

Result<SanitizedRun> run_sanitized(const KernelFile& file, const RunChoices& choices, RunOptions options,
                                   const std::string& tool, const SanitizedBackendFactory& factory) {
    auto setup = prepare_sanitizer(tool, !factory);  // a given factory brings its own sanitizer (tests)
    if (!setup) return setup.error();
    auto backend = make_sanitized_backend(*setup, factory);
    if (!backend) return backend.error();
    SanitizedRun out;
    out.tool = tool;
    {
        // The worker must end for compute-sanitizer to finish its log: session, then engine, go first.
        Engine engine(std::move(*backend));
        KernelSession session(engine);
        session.set_kernel(file);
        session.set_choices(choices);
        out.report = session.run(options);
    }
    out.summary = finish_sanitizing(setup->log_path, file, out.report);
    return out;
}

}  // namespace cp
