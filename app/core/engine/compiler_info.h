// Versions of the compilers the playground uses, for `info`, cache keys and bug reports.
#pragma once

#include <string>

namespace cp {

std::string nvrtc_version_string();  // "13.0"
std::string default_cuda_arch();     // the arch used to compile when no GPU is present: "sm_90"

}  // namespace cp
