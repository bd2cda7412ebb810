// A backend that only compiles (NVRTC for the default architecture): what the window and the session use when no
// backend can run kernels here, so the editor still gets diagnostics.
#pragma once

#include "core/engine/backend.h"

#include <memory>
#include <string>

namespace cp {

// Says `why` when asked to run anything.
std::unique_ptr<Backend> make_compile_only_backend(std::string why);

}  // namespace cp
