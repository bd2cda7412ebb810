// Comparing a kernel's outputs with the expected contents its CPU reference computed.
#pragma once

#include "core/data/host_buffer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cp {

struct Comparison {
    bool ok = true;
    double max_abs_error = 0;
    uint64_t mismatches = 0;      // components beyond tolerance
    uint64_t first_mismatch = 0;  // element index
    std::string detail;           // "dst[1234] = (1,2,3,4), expected (1,2,3,5)"
    uint64_t mismatched_elements = 0;             // elements with any component beyond tolerance
    std::vector<uint64_t> mismatched_components;  // per component
    std::vector<std::string> first_mismatches;    // up to 10, in element order
    std::vector<float> abs_error;                 // per element, the largest component error (when asked)
};
Comparison compare_buffers(const HostBuffer& actual, const HostBuffer& expected, double tolerance,
                           bool want_error_map = false);

}  // namespace cp
