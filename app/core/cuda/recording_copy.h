// The memory recording's copy of a kernel, built without the driver: NVRTC's PTX with the recording code written
// in (ptx_memory.h), compiled to a cubin by nvJitLink (the toolkit's PTX compiler, in this process, no GPU needed)
// and kept on disk beside NVRTC's results. The worker and `cuda-playground compile --memory` build it the same
// way, so a copy prepared ahead of time (the window does, in the background, for a kernel it opens) is loaded
// at the switch in milliseconds instead of waiting seconds for the driver's JIT.
#pragma once

#include "core/cuda/ptx_memory.h"
#include "core/engine/engine_api.h"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace cp {

struct RecordingCopy {
    CompileResult result;              // NVRTC's answer for the copy (log, diagnostics, ptxas usage); ok or not
    std::vector<std::byte> image;      // what cuModuleLoadData takes: the cubin, else the PTX (NUL-terminated)
    bool cubin = false;                // image is a cubin for the architecture (false: the driver's JIT makes it)
    bool cubin_kept = false;           // the cubin came from the disk, compiled before (here or by a preparation)
    double cubin_ms = 0;               // nvJitLink's time when it compiled now (0 when kept or not compiled)
    std::string cubin_note;            // why there is no cubin, when there is none ("" otherwise)
    std::vector<PtxMemorySite> sites;  // site s (1-based) is sites[s - 1]
    std::string lowered;               // request.kernel_name's symbol
    std::map<std::string, std::string> also_lowered;
    bool prints = false, asserts = false;  // the copy calls printf / assert (read from its PTX)
};

// The copy of `request`'s kernel for `arch` ("sm_90"): request.instrument_memory is implied. A cubin when `arch`
// is a real architecture and nvJitLink compiles it; otherwise (a virtual architecture, nvJitLink missing or
// refusing) the PTX, which the driver compiles at load as before. Never throws.
RecordingCopy compile_recording_copy(const CompileRequest& request, const std::string& arch);

}  // namespace cp
