// Creating the CUDA backend from a chosen driver library, so tests can play a machine without a driver
// (a missing file) or without a device (the toolkit's stub libcuda). Needs no CUDA header.
#pragma once

#include "core/backend.h"

#include <string>

namespace cp {

Result<std::unique_ptr<Backend>> make_cuda_backend_from_library(const std::string& libcuda_path);

}  // namespace cp
