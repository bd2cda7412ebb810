// Reading NVRTC's compiler log: diagnostics ("file(line): error: ..." plus the caret line that gives the
// column) and ptxas's "-v" resource report (registers, shared memory, stack, spills) for one kernel.
#pragma once

#include "core/types.h"

#include <string>
#include <vector>

namespace cp {

// `path` replaces an empty file name; `source_line_count` locates "At end of source" messages.
std::vector<Diagnostic> parse_nvrtc_diagnostics(const std::string& log, const std::string& path,
                                                int source_line_count);

// The ptxas report for the entry function `lowered_name` (or the only entry when the name is empty).
// Fields ptxas did not print stay -1. `found` (optional) tells whether the entry was in the log at all.
ResourceUsage parse_ptxas_usage(const std::string& log, const std::string& lowered_name, bool* found = nullptr);

// Entry functions ptxas compiled ("Compiling entry function 'X' for 'sm_90'"), in log order.
std::vector<std::string> ptxas_entry_functions(const std::string& log);

}  // namespace cp
