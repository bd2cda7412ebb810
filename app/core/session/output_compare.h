// Comparing a kernel's outputs with the expected contents its CPU reference computed.
#pragma once

#include "core/data/host_buffer.h"

#include <cstdint>
#include <string>

namespace cp {

struct Comparison {
    bool ok = true;
    double max_abs_error = 0;
    uint64_t mismatches = 0;       // components beyond tolerance
    uint64_t first_mismatch = 0;   // element index
    std::string detail;            // "dst[1234] = (1,2,3,4), expected (1,2,3,5)"
};
Comparison compare_buffers(const HostBuffer& actual, const HostBuffer& expected, double tolerance);

}  // namespace cp
