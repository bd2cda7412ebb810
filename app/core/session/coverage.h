// Measured coverage: which output elements no thread wrote. Outputs are filled with a sentinel before a
// launch, twice with different sentinels; an element that holds the sentinel both times was never written
// (one sentinel alone could equal a value a thread wrote, e.g. 0xA5 in a uchar image).
#pragma once

#include "core/engine/launch_validation.h"
#include "core/session/run_report.h"

#include <cstddef>
#include <vector>

namespace cp {

// One element of `element_bytes` bytes, each byte 0xA5 (pass 0) or 0x5A (pass 1).
std::vector<std::byte> coverage_sentinel(size_t element_bytes, int pass);

// `after_first` and `after_second`: the buffer after the launches over sentinel 0 and sentinel 1.
CoverageMap count_unwritten(const std::string& buffer, size_t element_bytes, const std::vector<std::byte>& after_first,
                            const std::vector<std::byte>& after_second);

// The limit named by the warning about elements written by more than one thread (when counted).
inline constexpr const char* kWrittenTwiceLimit = "each element written by one thread";

// Adds a warning per output with elements written by more than one thread (when counted), and replaces the
// launch checks' guess (kCoverageLimit warnings) with what was measured: a warning per output
// with elements never written, none when every element was written (grid-stride loops, several elements per
// thread). Suggestions of a grid the guess made are kept (they respect the device's limits).
void apply_measured_coverage(const std::vector<CoverageMap>& coverage, std::vector<LaunchIssue>& issues);

// "1,048,576"
std::string with_thousands(uint64_t n);

}  // namespace cp
