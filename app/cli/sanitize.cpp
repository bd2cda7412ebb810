// `run --sanitize`: see sanitize.h.
#include "cli/sanitize.h"

#include "core/kernel_file/kernel_spec.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace cp::cli {

Result<std::string> start_sanitizing(const std::string& tool) {
    if (!is_sanitizer_tool(tool))
        return make_error("--sanitize takes memcheck, racecheck, synccheck or initcheck, not `" + tool + "`",
                          "memcheck finds out-of-bounds accesses; racecheck shared-memory races; synccheck barrier "
                          "misuse; initcheck reads of memory never written");
    if (find_compute_sanitizer().empty())
        return make_error("compute-sanitizer was not found (looked in $CUDA_PLAYGROUND_COMPUTE_SANITIZER, "
                          "$CUDA_HOME/bin, /usr/local/cuda/bin and PATH)",
                          "install the CUDA toolkit's sanitizer (Debian/Ubuntu: apt-get install cuda-sanitizer-13-0), "
                          "or set CUDA_PLAYGROUND_COMPUTE_SANITIZER to its path");
    const std::filesystem::path log =
        std::filesystem::temp_directory_path() / ("cuda-playground-sanitizer-" + std::to_string(::getpid()) + ".log");
    std::filesystem::remove(log);
    ::setenv("CUDA_PLAYGROUND_SANITIZE", tool.c_str(), 1);
    ::setenv("CUDA_PLAYGROUND_SANITIZE_LOG", log.c_str(), 1);
    return log.string();
}

SanitizerSummary finish_sanitizing(const std::string& log_path, const KernelFile& file, RunReport& report) {
    std::ifstream in(log_path);
    std::stringstream text;
    text << in.rdbuf();
    in.close();
    std::filesystem::remove(log_path);
    SanitizerSummary summary = parse_sanitizer_log(text.str());
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
        report.diagnostics.push_back(Diagnostic{file.path.string(), f.line, 0, Severity::Error, f.message()});
    }
    return summary;
}

}  // namespace cp::cli
