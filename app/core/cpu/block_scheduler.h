// Running the threads of one block on one OS thread: a plain loop over the threads until the first
// barrier or warp operation, then every thread on its own fiber (Boost.Context) that switches only at
// barriers and warp operations. Detects barriers that cannot complete and says which threads are where.
#pragma once

#include "core/cpu/kernel_module.h"
#include "core/cpu/shim/cp_shim_abi.h"
#include "core/result.h"

#include <boost/context/detail/fcontext.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cp {

// In the order of ThreadOrderChoice::Kind (core/types.h), which launch requests carry.
enum class ThreadOrder { Natural, Reversed, Shuffled };

// What stopped a block, in words (the launch's error).
struct BlockFailure {
    std::string name;  // BARRIER_DIVERGENCE, DEADLOCK, ASSERT, TRAP
    std::string message;
    std::string hint;
    ErrorKind kind = ErrorKind::Fault;
};

// The same for every block of a launch.
struct BlockLaunch {
    const KernelEntry* entry = nullptr;
    void** args = nullptr;
    cp_abi::Uint3 block_dim{1, 1, 1};
    ThreadOrder order = ThreadOrder::Natural;
    uint64_t seed = 1;
    bool capture_printf = false;
    size_t printf_limit = 1 << 20;  // bytes per launch and worker
    // Stepping (a library compiled for the debugger): each probe is recorded here, and the block's threads then
    // run in rounds of one statement each (debug_recorder.h). Null: probes return at once.
    class DebugRecorder* debug = nullptr;
    // With `debug`: this warp's threads step alone while any of them is at a probe or a warp operation it can
    // pass; the others wait at their probes until then (LaunchRequest::debug_warp). -1: all step together.
    int32_t debug_warp = -1;
};

// Fiber stacks, reused from block to block; each has an inaccessible guard page below it.
class FiberStackPool {
public:
    static constexpr size_t kStackBytes = 128 * 1024;  // usable: a little less, the tops are staggered
    // Large enough that a function with big local arrays cannot step over it (address space only).
    static constexpr size_t kGuardBytes = 64 * 1024;
    struct Stack {
        std::byte* map = nullptr;  // guard page first, then the stack
        size_t map_bytes = 0;
    };
    ~FiberStackPool();
    void* acquire_top();  // top of a free stack (stacks grow down)
    void release_all() { used_ = 0; }
    bool in_guard(uintptr_t address) const;

private:
    std::vector<Stack> stacks_;
    size_t used_ = 0;
};

class BlockScheduler {
public:
    BlockScheduler();
    BlockScheduler(const BlockScheduler&) = delete;
    BlockScheduler& operator=(const BlockScheduler&) = delete;

    // On the worker thread, before its first block of a launch. `state` is this thread's state in the module.
    void begin_launch(const BlockLaunch& launch, cp_abi::ThreadState* state);

    // Runs every thread of the block whose indices are in the state's block_idx. False: failure() says why.
    bool run_block(uint64_t linear_block);

    // After a crash jumped out of run_block: drop the abandoned fibers so the next block starts clean.
    void recover_from_fault();

    const BlockFailure& failure() const { return failure_; }
    std::string take_block_output();  // printf text of the last block
    // printf text past the launch's limit, dropped (counted since begin_launch): its newlines, and its bytes.
    uint64_t dropped_printf_lines() const { return dropped_lines_; }
    uint64_t dropped_printf_bytes() const { return dropped_bytes_; }
    bool stack_guard_contains(uintptr_t address) const { return stacks_.in_guard(address); }

    static const cp_abi::HostApi* host_api();

    // Called by the kernel library through the host API (only from block_scheduler.cpp, where they are inlined).
    int on_sync_threads(int kind, int predicate, int line);
    unsigned long long on_warp_op(const cp_abi::WarpRequest& request);
    void on_print(const char* text, size_t length);
    [[noreturn]] void on_fail(int kind, const char* what, int line);
    void on_debug_step(int line, const char* names, const cp_abi::DebugValue* values, unsigned count);

private:
    using Context = boost::context::detail::fcontext_t;
    enum class Status : uint8_t { NotStarted, Runnable, Running, AtBarrier, AtWarp, AtActiveMask, AtStep, Exited };
    struct Slot {
        Context ctx = nullptr;
        Status status = Status::NotStarted;
        int kind = 0;  // barrier kind
        int predicate = 0;
        int line = 0;
        cp_abi::WarpRequest warp{};
        unsigned long long result = 0;
    };
    static constexpr int kMain = -1;   // the worker's own stack: resolves barriers, detects deadlocks
    static constexpr int kPlain = -2;  // the fiber running the plain loop, before any barrier

    static void plain_main(boost::context::detail::transfer_t from);
    static void fiber_main(boost::context::detail::transfer_t from);

    void make_order(uint64_t linear_block);
    void promote();
    void block_until_released();
    [[noreturn]] void exit_current_thread();
    void switch_to(int target);
    void set_running_thread(unsigned linear);
    void push_runnable(unsigned linear);
    int pop_runnable();
    bool release_waiting_threads();
    unsigned release_warp(unsigned warp, bool include_active_mask);  // lanes released (bit = lane)
    bool release_barrier();
    bool release_steps();
    bool release_focus_warp();
    void describe_stall();
    std::string thread_name(unsigned linear) const;
    std::string block_name() const;

    BlockLaunch launch_;
    cp_abi::ThreadState* state_ = nullptr;
    unsigned threads_ = 0;
    std::vector<cp_abi::Uint3> thread_index_;  // linear id -> threadIdx
    std::vector<unsigned> order_;              // run order (linear ids)
    cp_abi::PlainRun plain_run_{};
    int promoted_ = 0;
    bool block_done_ = false;
    bool failed_ = false;
    unsigned alive_ = 0;
    int current_ = kMain;
    Context main_ctx_ = nullptr, plain_ctx_ = nullptr;
    std::vector<Slot> slots_;
    std::vector<unsigned> queue_;  // runnable threads, in order: a ring of a power-of-two size
    size_t queue_head_ = 0, queue_tail_ = 0, queue_mask_ = 0;
    // Kept up to date as threads arrive, so releasing a barrier does not rescan every thread.
    unsigned barrier_arrived_ = 0, barrier_true_ = 0;
    int barrier_line_ = 0, barrier_kind_ = 0;
    bool barrier_mismatch_ = false;
    unsigned long long barrier_result_ = 0;  // one value for the whole block: read before the next release
    std::vector<unsigned> warp_waiting_;     // per warp: lanes at a warp operation
    std::vector<unsigned> warp_live_;        // per warp: lanes that have not exited
    unsigned warp_waiting_total_ = 0;
    unsigned step_waiting_ = 0;  // threads at a debugger's probe, waiting for the round to end
    std::vector<unsigned> alive_order_;      // live threads in run order
    bool alive_order_stale_ = true;
    FiberStackPool stacks_;
    BlockFailure failure_;
    std::string block_output_;
    size_t printed_bytes_ = 0;
    uint64_t dropped_lines_ = 0, dropped_bytes_ = 0;
};

}  // namespace cp
