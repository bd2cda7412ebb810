// The CPU backend's worker threads (one per core by default): a launch's blocks are handed out to them
// in order; each block runs wholly on one worker. A kernel crash on a worker stops the launch, not the
// process.
#pragma once

#include "core/cpu/block_scheduler.h"
#include "core/engine/debug_recording.h"
#include "core/cpu/fault_trap.h"
#include "core/cpu/guarded_memory.h"
#include "core/cpu/kernel_module.h"
#include "core/cpu/static_shared.h"
#include "core/engine/engine_api.h"
#include "core/types.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace cp {

struct GridLaunch {
    KernelModule* module = nullptr;
    const KernelEntry* entry = nullptr;
    void** args = nullptr;
    Dim3 grid, block;
    uint32_t dynamic_shared_bytes = 0;
    ThreadOrder order = ThreadOrder::Natural;
    uint64_t seed = 1;
    bool capture_printf = false;
    // When set (sized grid.count()), each block's worker and its start/end on the steady clock, in ns from
    // the launch's start, as a traced GPU launch records SMs and %globaltimer.
    std::vector<BlockTrace>* trace = nullptr;
    // When set, the blocks from its value on are not run (read as the launch goes): a memory recording past its
    // cap, whose later blocks would not count (access_recorder.h) and whose output nobody reads.
    const std::atomic<uint64_t>* blocks_end = nullptr;
    // When set, counts the blocks that have run (a program's launch: the app estimates how long a launch the
    // watchdog stopped would have taken).
    std::atomic<uint64_t>* blocks_done = nullptr;
    // Stepping (issue 39): only this block runs, on the first worker, its probes recorded into `debug_out` (the
    // library is compiled for the debugger, core/cpu/debug_instrument.h).
    std::optional<uint64_t> debug_block;
    int32_t debug_warp = -1;  // LaunchRequest::debug_warp
    std::optional<DebugRecording>* debug_out = nullptr;
    std::vector<std::pair<const std::byte*, uint64_t>> debug_globals;  // the launch's buffers, for its accesses
};

// Where a crash's data address fell, when it is somewhere the worker itself knows about.
struct WorkerFaultPlace {
    enum class Kind { Elsewhere, DynamicShared, StaticShared, StackGuard } kind = Kind::Elsewhere;
    GuardedBuffer::Location location;  // DynamicShared, StaticShared
    uint64_t shared_bytes = 0;
    std::string array_name;            // StaticShared: the array, and its element size (for "element 33 of 32")
    uint32_t element_size = 0;
    std::vector<uint64_t> extents;     // StaticShared: its dimensions, outermost first
    bool found_after_launch = false;   // StaticShared: written where no guard is, found once the blocks ended
};

struct GridFailure {
    uint64_t block = 0;                 // linear index of the block that failed
    std::optional<BlockFailure> block_failure;  // divergence, deadlock, assert, trap: already in words
    std::optional<FaultRecord> fault;   // a crash: the backend names the buffer and the line
    WorkerFaultPlace place;
};

struct GridOutcome {
    bool ok = true;
    GridFailure failure;
    std::string printf_output;  // blocks in order
};

// The printf output of a launch as shown: at most kPrintfShownLines lines and kPrintfShownBytes (the rest, and what the workers
// already dropped past their byte limit, summed up in one last line: "... 3,000 lines not shown"), like CUDA's
// fixed-size printf buffer, so a kernel printing in a loop cannot fill the app's memory or the Output panel.
inline constexpr size_t kPrintfShownLines = 5000;
inline constexpr size_t kPrintfShownBytes = size_t(1) << 20;  // and per worker, what it keeps before the merge
std::string cap_printf_output(std::string text, uint64_t dropped_lines, uint64_t dropped_bytes,
                              size_t max_lines = kPrintfShownLines, size_t max_bytes = kPrintfShownBytes);

class WorkerPool {
public:
    // `observer` (may be null) is told, on each worker thread as a launch starts, where that thread's
    // CUDA thread state is (the CPU worker publishes it so the app can name a blocked thread).
    using StateObserver = void (*)(int worker_index, const cp_abi::ThreadState* state);
    explicit WorkerPool(int workers, StateObserver observer = nullptr);
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    int size() const { return int(workers_.size()); }
    GridOutcome run(const GridLaunch& launch);

private:
    struct Worker {
        int index = 0;  // which worker (a traced launch's "unit")
        std::thread thread;
        BlockScheduler scheduler;
        FaultTrap trap;
        AltSignalStack* alt_stack = nullptr;  // owned by the worker's thread
        GuardedBuffer dynamic_shared;
        StaticSharedArrays static_shared;
        uint64_t static_shared_module = 0;  // the KernelModule::serial() they belong to
        std::vector<std::pair<uint64_t, std::string>> printed;
        uint64_t current_block = 0;
        bool failed = false;
        GridFailure failure;
    };
    void worker_loop(Worker& w);
    void execute(Worker& w);
    void run_blocks(Worker& w, cp_abi::ThreadState* state);
    bool run_one_block(Worker& w, cp_abi::ThreadState* state, uint64_t b);

    std::vector<std::unique_ptr<Worker>> workers_;
    StateObserver observer_ = nullptr;
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    uint64_t generation_ = 0;
    int busy_ = 0;
    bool stopping_ = false;

    // The launch in progress.
    const GridLaunch* job_ = nullptr;
    std::chrono::steady_clock::time_point job_start_;
    uint64_t total_blocks_ = 0, chunk_ = 1;
    std::atomic<uint64_t> next_block_{0};
    // The lowest block that failed so far: later blocks are skipped, earlier ones still run, so the failure
    // reported is the first in block order however the workers were scheduled.
    std::atomic<uint64_t> first_failure_{UINT64_MAX};
    void note_failure(uint64_t block);
};

}  // namespace cp
