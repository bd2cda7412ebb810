// The CPU backend's recorder of memory accesses (issue 23), in the worker process: a recording kernel library
// hands it every load and store of kernel code (cp_shim_abi.h, AccessRecorder); during a recording launch it
// keeps those to global memory (the launch's guarded buffers) and shared memory (static __shared__ arrays, the
// dynamic shared memory), up to a cap, and turns them into per-site figures (memory_figures.h).
#pragma once

#include "core/cpu/shim/cp_shim_abi.h"
#include "core/engine/memory_figures.h"
#include "core/types.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace cp {

// At most this many accesses are kept per launch (32 bytes each): past it, only the blocks recorded whole, the
// first ones, count.
inline constexpr uint64_t kMemoryRecordCap = uint64_t(1) << 22;

// The process's recorder, for cp_module_bind_recorder of each recording library. It keeps nothing outside a
// recording.
const cp_abi::AccessRecorder* access_recorder();

struct RecordingLaunch {
    Dim3 grid;
    uint64_t dynamic_shared_bytes = 0;
    std::vector<std::pair<const std::byte*, uint64_t>> global;  // the guarded buffers: [start, start + bytes)
    uintptr_t load_base = 0;  // sites are instruction offsets from here (the library's load base)
    uint64_t cap = kMemoryRecordCap;
    std::vector<WarpId> warps;  // kept lane by lane (MemoryRecording::warps)
};

// Starts keeping accesses (one recording at a time: the worker runs one launch at a time).
bool begin_access_recording(const RecordingLaunch& launch);
// Stops and computes the figures, per site (an offset into the library: the call's return address).
MemoryRecording end_access_recording();
// During a recording: the lowest block that lost an access to the cap (UINT64_MAX while none did). Blocks from it
// on do not count, so a recording launch need not run them (GridLaunch::blocks_end): a launch of many times the
// cap's accesses then costs the recording of its first blocks, not of all of them.
const std::atomic<uint64_t>* access_recording_blocks_end();

}  // namespace cp
