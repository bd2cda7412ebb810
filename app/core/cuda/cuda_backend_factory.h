// Ways to create the CUDA backend. The registry's make_cuda_backend() runs it in a worker process that is
// replaced after a sticky error; tests also make it in this process. Needs no CUDA header.
#pragma once

#include "core/engine/backend.h"

#include <string>

namespace cp {

// The registry's factory (core/engine/backend_registry.cpp): the worker process (cuda_worker.h) on CUDA device
// `device` (the cuDeviceGet ordinal; an Error in plain words when the machine has no such device).
Result<std::unique_ptr<Backend>> make_cuda_backend(int device = 0);

// The worker process started under compute-sanitizer with `tool` (memcheck, racecheck, ...), which writes its
// findings to `log` as the worker ends: destroy the backend before reading it (core/session/sanitize.h).
Result<std::unique_ptr<Backend>> make_cuda_backend_under_sanitizer(const std::string& tool, const std::string& log);

// The backend in this process: device pointers from allocate() are usable here (CUDA-GL interop), but a
// sticky error (illegal address, device assert...) leaves CUDA unusable until the process restarts.
Result<std::unique_ptr<Backend>> make_cuda_backend_in_process();

// In this process, from a chosen driver library, so tests can play a machine without a driver (a missing
// file) or without a device (the toolkit's stub libcuda).
Result<std::unique_ptr<Backend>> make_cuda_backend_from_library(const std::string& libcuda_path);

}  // namespace cp

namespace cp {

// "sm_90" for CUDA device 0, asked of the driver directly (no context, no worker); empty without a device.
std::string cuda_device_arch();

}  // namespace cp
