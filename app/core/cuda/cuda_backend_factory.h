// Ways to create the CUDA backend. The registry's make_cuda_backend() runs it in a worker process that is
// replaced after a sticky error; tests also make it in this process. Needs no CUDA header.
#pragma once

#include "core/engine/backend.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace cp {

// The registry's factory (core/backends/registry.cpp): the worker process (cuda_worker.h) on CUDA device
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

// A kernel that faulted on the GPU (an illegal address, a device assert...) leaves the NVIDIA driver in a state
// where CUDA-GL interop, in any process, stalls for seconds (or minutes) or leaves textures stale, until the
// GPU is reset (seen on H100 and H200, driver 580: Xid 109, CTX SWITCH TIMEOUT). The CUDA backend remembers
// such a fault for this process and, per user, for this boot of the machine and its GPUs (the file
// `gpu-fault` in the user's cache folder), so that windows show outputs through host memory instead.
void remember_gpu_fault();
// Faults remembered by this process (remember_gpu_fault calls): cheap enough to ask every frame.
int gpu_faults_in_this_process();
void forget_gpu_faults_in_this_process_for_tests();
// When a fault was remembered on this boot for these GPUs (by any process): its time, in seconds since the
// epoch. Never without an NVIDIA driver.
std::optional<int64_t> remembered_gpu_fault();
// The same against an explicit file and machine state (tests).
void remember_gpu_fault_in(const std::filesystem::path& file, const std::string& machine, int64_t when);
std::optional<int64_t> remembered_gpu_fault_in(const std::filesystem::path& file, const std::string& machine);

}  // namespace cp
