// PLACEHOLDER until the CPU backend lands: reports that it is unavailable.
#include "core/backend.h"

namespace cp {
Result<std::unique_ptr<Backend>> make_cpu_backend() {
    return make_error("the CPU backend is not built yet");
}
}  // namespace cp
