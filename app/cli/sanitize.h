// `run --sanitize TOOL`: the CUDA worker started under compute-sanitizer, and its log turned into findings
// (kind, thread, block, buffer and element, file:line) for the terminal, the JSON and the editor's lines.
#pragma once

#include "core/cuda/sanitizer_report.h"
#include "core/kernel_file/kernel_file.h"
#include "core/result.h"
#include "core/session/run_report.h"

#include <string>

namespace cp::cli {

// Checks the tool's name and finds compute-sanitizer; sets the environment the CUDA worker reads
// (CUDA_PLAYGROUND_SANITIZE, CUDA_PLAYGROUND_SANITIZE_LOG) so the next worker starts under it.
// Returns the log's path.
Result<std::string> start_sanitizing(const std::string& tool);

// Reads the log once the worker has ended, names buffers and elements from the report, and adds each
// finding with a line to report.diagnostics (the editor marks those lines).
SanitizerSummary finish_sanitizing(const std::string& log_path, const KernelFile& file, RunReport& report);

}  // namespace cp::cli
