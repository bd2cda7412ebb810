// Machine-readable forms of results for the command line's --json output and scripts: built once here as
// nlohmann::json values, which front ends extend (variants, sanitizer findings) and print with json_text.
#pragma once

#include "core/session/json_schema_versions.h"
#include "core/session/run_report.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace cp {

nlohmann::json run_report_json(const RunReport& report, const std::vector<std::filesystem::path>& written_files);
nlohmann::json diagnostics_json(const std::vector<Diagnostic>& diagnostics);
nlohmann::json usage_json(const ResourceUsage& usage);

// Indented text of a JSON value. Kernel files and their printf output need not be UTF-8: invalid bytes
// become U+FFFD instead of an exception.
std::string json_text(const nlohmann::json& j);

}  // namespace cp
