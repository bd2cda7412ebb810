// Independent CPU references that kernel files name in their `reference:` line.
// A reference computes the expected contents of the kernel's out/inout buffers from the inputs.
#pragma once

#include "core/data/host_buffer.h"
#include "core/kernel_file/kernel_spec.h"

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace cp {

struct ReferenceInputs {
    std::map<std::string, double> params;          // every parameter's value
    std::map<std::string, HostBuffer> buffers;     // every buffer as initialised (before the launch)
};

// Fills expected[name] for each out/inout buffer it knows; returns an error message on misuse
// (e.g. a buffer it needs is missing), empty on success.
using ReferenceFn = std::function<std::string(const ReferenceInputs&, std::map<std::string, HostBuffer>& expected)>;

const ReferenceFn* find_reference(const std::string& name);
std::vector<std::string> reference_names();

struct Comparison {
    bool ok = true;
    double max_abs_error = 0;
    uint64_t mismatches = 0;       // components beyond tolerance
    uint64_t first_mismatch = 0;   // element index
    std::string detail;            // "dst[1234] = (1,2,3,4), expected (1,2,3,5)"
};
Comparison compare_buffers(const HostBuffer& actual, const HostBuffer& expected, double tolerance);

}  // namespace cp
