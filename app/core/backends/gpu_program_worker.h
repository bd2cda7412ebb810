// Whole programs with their kernels on the GPU (the registry's "cuda" entry): the host code in the sandboxed GPU
// program worker, the device code compiled with NVRTC for the GPU the worker opened.
#pragma once

#include "core/cpu/program_runner.h"

namespace cp {

// Unsupported when this machine has no NVIDIA driver (the GPU itself is opened by the worker, on the first run).
Result<std::unique_ptr<ProgramRunner>> make_gpu_program_runner();

}  // namespace cp
