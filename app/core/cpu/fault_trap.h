// Catching a kernel's crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL) on a CPU worker thread: the signal handler
// records where it happened and jumps back to the worker's launch loop, so the engine keeps working.
// Crashes anywhere else go to whatever handler was installed before (normally: the process dies).
#pragma once

#include "core/cpu/shim/cp_shim_abi.h"

#include <csetjmp>
#include <csignal>
#include <cstdint>
#include <optional>

namespace cp {

struct FaultRecord {
    int signal = 0;
    int code = 0;                 // si_code (e.g. FPE_INTDIV, SEGV_ACCERR)
    uintptr_t address = 0;        // the faulting data address (SIGSEGV/SIGBUS)
    uintptr_t instruction = 0;    // the faulting instruction
    uintptr_t stack_pointer = 0;  // to look for the kernel's return address when it crashed inside libc
    int access = 0;               // 0 unknown, 1 read, 2 write
    // A general-protection fault (SIGSEGV, si_code SI_KERNEL: a misaligned 16-byte SSE access, or a
    // non-canonical address) has no si_addr: the memory operand of the SSE instruction, decoded.
    bool vector_operand = false;  // `address` is that operand's address
    cp_abi::Uint3 thread{}, block{};
};

// One per worker thread. While `armed`, a fault on this thread fills `record` and siglongjmps to `env`.
struct FaultTrap {
    sigjmp_buf env;
    volatile sig_atomic_t armed = 0;
    const cp_abi::ThreadState* state = nullptr;  // where the running CUDA thread's indices are
    FaultRecord record;
};

// Installs the process-wide handlers once (later calls do nothing).
void install_fault_handlers();

// Makes `trap` (or none) the calling thread's trap.
void set_thread_fault_trap(FaultTrap* trap);
// The calling thread's trap (null on threads that run no kernel code).
const FaultTrap* current_fault_trap();

// An access outside its buffer found by the per-access check (access_bounds.h) rather than by a fault:
// while this thread's trap is armed, records it as a SIGSEGV at `address` by the instruction `pc` (1 read,
// 2 write) and siglongjmps as the signal handler does; returns when no trap is armed.
void raise_bounds_fault(uintptr_t address, int access, uintptr_t pc);

// Runs fn(args) on this thread with a trap armed: nullopt when it returned, else how it crashed.
std::optional<FaultRecord> call_with_fault_trap(void (*fn)(void**), void** args);

// Called (from the signal handler) for a crash that no trap catches, just before the process dies of it:
// the CPU worker leaves its last words for the app. Must be async-signal-safe.
using UnhandledFaultHook = void (*)(int signal, const siginfo_t* info, const void* context);
void set_unhandled_fault_hook(UnhandledFaultHook hook);

// An alternate signal stack for the calling thread (the fault may be a stack overflow on a fiber).
class AltSignalStack {
public:
    AltSignalStack();
    ~AltSignalStack();
    AltSignalStack(const AltSignalStack&) = delete;
    AltSignalStack& operator=(const AltSignalStack&) = delete;
    void forget_frames();  // after leaving the handler with siglongjmp (AddressSanitizer builds)

private:
    void* memory_ = nullptr;
    size_t bytes_ = 0;
};

}  // namespace cp
