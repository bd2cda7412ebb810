// compute-sanitizer's findings as values: its text log (memcheck, racecheck, synccheck, initcheck; the
// kernel compiled with -lineinfo, so each finding has file:line) parsed into kind, thread, block, address,
// file and line, then matched with the run's buffers to name the buffer and element.
#pragma once

#include "core/types.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cp {

struct SanitizerFinding {
    std::string kind;     // "Invalid __global__ write of size 4 bytes", "Race reported between ...", ...
    std::optional<Dim3> thread, block;
    uint64_t address = 0;  // 0: none given
    std::string file;      // as the kernel was compiled (its path)
    int line = 0;          // 0: unknown
    std::string detail;    // the rest: "is 1 bytes after the nearest allocation at 0x... of size 4,000 bytes"
    std::string buffer;    // the run's buffer the address falls in or next to; empty if none
    int64_t element = 0;   // element index in `buffer` (may be past the end or negative)
    uint64_t buffer_elements = 0;
    std::string message() const;  // one line: "Invalid __global__ write of size 4 bytes by thread (231,0,0) ..."
};

struct SanitizerSummary {
    std::vector<SanitizerFinding> findings;
    int reported_errors = -1;  // "ERROR SUMMARY: N errors"; -1 when the log has no summary (it did not finish)
};

// Parses compute-sanitizer's text log (lines prefixed with "========= ").
SanitizerSummary parse_sanitizer_log(const std::string& log);

// One of the run's buffers, as the backend placed it.
struct BufferPlacement {
    std::string name;
    uint64_t address = 0;
    uint64_t bytes = 0;
    uint32_t element_bytes = 1;
};
// Names the buffer and element of each finding with an address: the buffer it lies in, or the nearest one
// within 64 KiB before or after it.
void attribute_findings(std::vector<SanitizerFinding>& findings, const std::vector<BufferPlacement>& buffers);

// compute-sanitizer from $CUDA_PLAYGROUND_COMPUTE_SANITIZER, the toolkit ($CUDA_HOME, $CUDA_PATH,
// /usr/local/cuda) or PATH; empty when none is found.
std::string find_compute_sanitizer();

// The tools `--sanitize` accepts.
bool is_sanitizer_tool(const std::string& tool);

// The text of compute-sanitizer's log at `log_path` ("" when there is none), and the file removed: the log
// belongs to one sanitized run.
std::string take_sanitizer_log(const std::string& log_path);

}  // namespace cp
