// Small stand-ins for the C/C++ standard headers NVRTC lacks (<cstdio>, <cassert>, <cstdint>, <cmath>,
// <climits>, <cfloat>, <algorithm>), handed to NVRTC in memory so kernels written for nvcc and for the
// CPU backend compile unchanged. printf, assert and the math functions are NVRTC built-ins; these
// headers only add what is missing (fixed-width integers, limit macros, M_PI, std:: names).
#pragma once

#include <string>
#include <vector>

namespace cp {

struct InMemoryHeader {
    const char* name;      // as written in #include <...>
    const char* contents;
};

const std::vector<InMemoryHeader>& nvrtc_std_headers();

}  // namespace cp
