// PLACEHOLDER until the CUDA backend lands: reports that CUDA is unavailable.
#include "core/backend.h"

namespace cp {
Result<std::unique_ptr<Backend>> make_cuda_backend() {
    return make_error("the CUDA backend is not built yet");
}
}  // namespace cp
