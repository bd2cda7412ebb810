// What a whole program's host code reaches through cp_abi::ProgramHost (cuda_program.h), in the CPU worker: its
// allocations as guarded buffers named after the program's variables, and its launches on the worker pool with
// every check a lesson's launch gets (limits, bounds per access, barriers), each told to the app as it ends.
#pragma once

#include "core/cpu/cpu_executor.h"
#include "core/cpu/guarded_memory.h"
#include "core/cpu/kernel_module.h"
#include "core/cpu/worker_pool.h"

#include <cstdint>
#include <map>
#include <string>

namespace cp {

class ProgramHostState {
public:
    ProgramHostState(WorkerPool& pool, KernelModule& module, const ProgramRunRequest& request,
                     const ProgramLaunchSink& on_launch, ThreadOrder order, uint64_t seed);
    ProgramHostState(const ProgramHostState&) = delete;
    ProgramHostState& operator=(const ProgramHostState&) = delete;

    ~ProgramHostState();
    const cp_abi::ProgramHost* table() const { return &table_; }
    // The name of the cudaMalloc allocation `address` lies in (`d_c`), or null: a host crash there read device memory.
    const std::string* device_allocation_at(uintptr_t address) const;

    // The cudaError_t a program sees after a launch that faulted with the playground's error `name` (OUT_OF_BOUNDS:
    // 700, ASSERT: 710...).
    static int cuda_error_for(const std::string& name);
    // ... and for a launch the device's limits refuse, as CUDA 13 says on an NVIDIA H200 (driver 580.159): for every
    // limit (a block of 2048 or 1024x2 threads, z of 65, a block or grid of 0, grid.y of 65536, grid.x of 2^31, 49153
    // or 300000 bytes of dynamic shared memory) cudaErrorInvalidValue, not the cudaErrorInvalidConfiguration older
    // CUDA gave (tests/data/programs/refused_launches.cu).
    static constexpr int kRefusedLaunchError = 1;

private:
    struct Allocation {
        std::string name;
        int kind = 0;
        int line = 0;
        GuardedBuffer memory;
    };
    void* allocate(uint64_t bytes, int kind, const char* name, int line);
    int release(void* pointer, int kind);
    const Allocation* find(const void* pointer) const;
    int launch(const cp_abi::ProgramLaunch& l);
    // Opens (and closes) device memory to this thread; nested calls count, the outermost decides.
    void device_access(bool open);
    // Appends `bytes` to the capture file; false when it could not (the buffer is then recorded without data).
    bool append_capture(const std::byte* data, uint64_t bytes);

    WorkerPool& pool_;
    KernelModule& module_;
    ProgramRunRequest request_;
    const ProgramLaunchSink& on_launch_;
    ThreadOrder order_;
    uint64_t seed_;
    cp_abi::ProgramHost table_{};
    std::map<uintptr_t, Allocation> allocations_;  // by the data's start
    uint64_t allocated_bytes_ = 0;
    uint64_t captured_ = 0;  // bytes in the capture file
    size_t launches_made_ = 0;  // the index of the next launch (ProgramRunRequest::changes)
    int open_count_ = 0;        // device_access(true) not yet closed
};

}  // namespace cp
