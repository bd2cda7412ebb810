// The GPU as a whole program's device: the GPU program worker (core/backends/gpu_program_worker.cpp, a CPU worker
// whose programs' kernels run here) opens the device before its sandbox, and each run's host code reaches the
// driver through the cp_abi::ProgramHost table: allocations (cuMemAlloc, cuMemAllocManaged, cuMemHostAlloc), copies,
// streams and events are the driver's, and so are the errors (a fault is sticky as in any CUDA context). Launches
// go to the instantiation the kernel's entry probe named, with the parameters as the call converted them; each is
// timed between two CUDA events and told when it is known to have ended (the next synchronising call or the end).
#pragma once

#include "core/engine/program_device.h"

namespace cp {

const ProgramDeviceHooks& cuda_program_device_hooks();

}  // namespace cp
