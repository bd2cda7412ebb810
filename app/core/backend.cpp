// Choosing a backend: CUDA when a device is usable, else the CPU emulator (or exactly what was asked).
#include "core/backend.h"

namespace cp {

Result<std::unique_ptr<Backend>> make_backend(BackendChoice choice, std::string* why_not_cuda) {
    if (choice == BackendChoice::Cpu) return make_cpu_backend();
    auto cuda = make_cuda_backend();
    if (cuda.ok() || choice == BackendChoice::Cuda) return cuda;
    if (why_not_cuda) *why_not_cuda = cuda.error().message;
    return make_cpu_backend();
}

}  // namespace cp
