// The page of shared memory between the app and its CPU worker process: where each pool thread keeps the
// running CUDA thread's indices, where the kernel libraries are loaded, and the worker's last words when
// kernel code ends the process (exit(), abort(), a crash outside a launch). The worker writes, the app
// reads; the app trusts none of it beyond putting it in a message.
#pragma once

#include "core/cpu/shim/cp_shim_abi.h"

#include <atomic>
#include <csignal>
#include <cstdint>

namespace cp {

struct WorkerStatus {
    static constexpr uint32_t kMagic = 0x43505753;  // "SWPC"
    static constexpr int kThreads = 512, kModules = 64, kAddresses = 4;
    static constexpr int kSampleSignal = SIGUSR2;
    enum End : int32_t { kRunning = 0, kExit = 1, kQuickExit = 2, kAbort = 3, kCrash = 4 };

    struct ThreadSlot {
        std::atomic<int32_t> tid;
        std::atomic<uint64_t> state;  // address of the cp_abi::ThreadState in the worker (0: none yet)
        // A launch the watchdog is about to stop: the app signals each pool thread (kSampleSignal), whose handler
        // writes the kernel code it was running (the instruction, then return addresses on its stack, innermost
        // first; 0: none) and then sets `sampled`, so the app can say which CUDA thread was where.
        std::atomic<uint32_t> sampled;
        uint64_t sampled_code[kAddresses];
    };
    struct ModuleSlot {
        std::atomic<uint64_t> id;  // 0: free
        std::atomic<uint64_t> load_base, code_begin, code_end;
    };

    uint32_t magic;
    ThreadSlot threads[kThreads];
    ModuleSlot modules[kModules];

    // Last words: `end` is set once, by the thread that ended the process.
    std::atomic<int32_t> end;
    int32_t exit_status;       // kExit
    int32_t signal;            // kAbort, kCrash
    int32_t on_kernel_thread;  // 1: `thread` and `block` say which CUDA thread it was
    int32_t tid;
    cp_abi::Uint3 thread, block;
    uint64_t fault_address;               // kCrash
    uint64_t code_addresses[kAddresses];  // kernel code on the stack, innermost first (0: none)

    // A program's running launch (issue 36): its blocks and how many have run, so that the app can say how long a
    // launch its watchdog stopped would have needed here.
    std::atomic<uint64_t> launch_blocks_total, launch_blocks_done;
};

static_assert(std::atomic<uint64_t>::is_always_lock_free, "the status page is shared between processes");

}  // namespace cp
