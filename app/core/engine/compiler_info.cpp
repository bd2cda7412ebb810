// NVRTC version query and the default architecture for compile-only use without a GPU.
#include "core/engine/compiler_info.h"

#include <nvrtc.h>

namespace cp {

std::string nvrtc_version_string() {
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
    return std::to_string(major) + "." + std::to_string(minor);
}

std::string default_cuda_arch() { return "sm_90"; }

}  // namespace cp
