// Machine-readable forms of results for the command line's --json output and scripts.
#pragma once

#include "core/session/run_report.h"

#include <filesystem>
#include <string>
#include <vector>

namespace cp {

std::string run_report_json(const RunReport& report, const std::vector<std::filesystem::path>& written_files);
std::string diagnostics_json(const std::vector<Diagnostic>& diagnostics);
std::string device_info_json(const DeviceInfo& device);
std::string usage_json(const ResourceUsage& usage);

}  // namespace cp
