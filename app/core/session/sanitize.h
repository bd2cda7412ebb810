// A kernel run under compute-sanitizer (`run --sanitize TOOL`, the window's Sanitize): the CUDA worker started
// under the sanitizer, and its log turned into findings (kind, thread, block, buffer and element, file:line)
// for the terminal, the JSON and the editor's lines. The command line and the window share all of it.
#pragma once

#include "core/toolkit/sanitizer_report.h"
#include "core/engine/backend.h"
#include "core/kernel_file/kernel_file.h"
#include "core/result.h"
#include "core/session/run_report.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace cp {

// The tools, in the order menus list them: memcheck, racecheck, synccheck, initcheck.
const std::vector<std::string>& sanitizer_tools();
// One line on what a tool finds, for tooltips and help.
std::string sanitizer_tool_purpose(const std::string& tool);

// Why kernels cannot be sanitized on this device/backend, in plain words ("" when they can): the backend
// must be CUDA's worker and compute-sanitizer must be installed.
std::string sanitize_unavailable_reason(const DeviceInfo& device);

// A sanitized run being prepared: the tool and the log the sanitizer will write.
struct SanitizerSetup {
    std::string tool;
    std::string log_path;
};
// Checks the tool's name and (with `find_sanitizer`) that compute-sanitizer is installed; picks a fresh log path.
Result<SanitizerSetup> prepare_sanitizer(const std::string& tool, bool find_sanitizer = true);

// Makes the backend whose worker runs under the sanitizer (default: the CUDA worker, see
// cuda_backend_factory.h). Tests pass their own.
using SanitizedBackendFactory =
    std::function<Result<std::unique_ptr<Backend>>(const std::string& tool, const std::string& log_path)>;
Result<std::unique_ptr<Backend>> make_sanitized_backend(const SanitizerSetup& setup,
                                                        const SanitizedBackendFactory& factory = {});

// Reads the log once the worker has ended (the backend destroyed), names buffers and elements from the
// report, and adds each finding with a line to report.diagnostics (the editor marks those lines).
SanitizerSummary finish_sanitizing(const std::string& log_path, const KernelFile& file, RunReport& report);

// One run of `file` with `choices` on a fresh backend under the sanitizer: made, run, ended, log read. The
// report is the run's (its buffers are gone with the backend; its outputs were read back if asked).
struct SanitizedRun {
    std::string tool;
    RunReport report;
    SanitizerSummary summary;
};
Result<SanitizedRun> run_sanitized(const KernelFile& file, const RunChoices& choices, RunOptions options,
                                   const std::string& tool, const SanitizedBackendFactory& factory = {});

}  // namespace cp
