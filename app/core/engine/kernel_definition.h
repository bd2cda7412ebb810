// Finding a __global__ function's definition in a kernel's source text, for the instrumented variants made
// from it (trace_wrapper.h, count_wrapper.h): where its name and parameter list are, and each parameter's name.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace cp {

struct KernelDefinition {
    size_t global = 0;   // where `__global__` starts
    size_t name_at = 0;  // where the kernel's name starts
    size_t open = 0;     // the parameter list's '('
    size_t close = 0;    // just past its ')'
    std::string params_text;  // between the parentheses
    struct Param {
        std::string name;
        size_t begin = 0, end = 0;  // the declaration in params_text, spaces trimmed (`float* __restrict__ out`)
        size_t name_at = 0;         // where the name starts in params_text
    };
    std::vector<Param> params;
    // The text between `__global__` and the name with __launch_bounds__(...) blanked out, and that bound
    // (it belongs to the __global__ function, so a wrapper takes it over).
    std::string between, bounds;
};

// `why` says what is missing when nothing is returned (the kernel is not found, its parameter list cannot be read).
std::optional<KernelDefinition> find_kernel_definition(const std::string& source, const std::string& kernel_name,
                                                       std::string& why);

}  // namespace cp
