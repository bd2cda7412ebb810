// The one list of backends: names, descriptions and factories. `--backend`, `info`, the window, the JSON and
// the docs read it from here. A new backend lives in its own folder under core/ and adds one line below.
#include "core/engine/backend.h"

namespace cp {

// Defined in the backends' folders.
Result<std::unique_ptr<Backend>> make_cuda_backend(int device);  // core/cuda/cuda_worker.cpp
Result<std::unique_ptr<Backend>> make_cpu_backend(int device);   // core/cpu/cpu_backend.cpp

const std::vector<BackendEntry>& backend_registry() {
    static const std::vector<BackendEntry> registry = {
        {"cuda", "an NVIDIA GPU: NVRTC and the CUDA driver API, in a worker process that is replaced after a fault",
         [](int device) { return make_cuda_backend(device); }},
        {"cpu", "the CPU emulator: the same source built by the host compiler, GPU threads run as fibers",
         [](int device) { return make_cpu_backend(device); }},
    };
    return registry;
}

}  // namespace cp
