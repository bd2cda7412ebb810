// Signal handling for kernel crashes: record, then siglongjmp out of the handler to the worker loop.
#include "core/cpu/fault_trap.h"

#include "core/cpu/sanitizer_support.h"

#include <mutex>
#include <sys/mman.h>
#include <ucontext.h>

namespace cp {
namespace {

thread_local FaultTrap* tls_trap = nullptr;
UnhandledFaultHook g_unhandled_hook = nullptr;

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
struct sigaction previous_actions[4];

int signal_slot(int sig) {
    for (int i = 0; i < 4; ++i)
        if (kSignals[i] == sig) return i;
    return -1;
}

void on_fault(int sig, siginfo_t* info, void* context) {
    FaultTrap* trap = tls_trap;
    if (trap && trap->armed) {
        trap->armed = 0;
        FaultRecord& r = trap->record;
        r.signal = sig;
        r.code = info->si_code;
        r.address = reinterpret_cast<uintptr_t>(info->si_addr);
        r.instruction = 0;
        r.stack_pointer = 0;
        r.access = 0;
#if defined(__x86_64__)
        const auto* uc = static_cast<const ucontext_t*>(context);
        r.instruction = uintptr_t(uc->uc_mcontext.gregs[REG_RIP]);
        r.stack_pointer = uintptr_t(uc->uc_mcontext.gregs[REG_RSP]);
        // Page-fault error code: bit 1 set for a write.
        if (sig == SIGSEGV) r.access = (uc->uc_mcontext.gregs[REG_ERR] & 2) ? 2 : 1;
#elif defined(__aarch64__)
        r.instruction = uintptr_t(static_cast<const ucontext_t*>(context)->uc_mcontext.pc);
        r.stack_pointer = uintptr_t(static_cast<const ucontext_t*>(context)->uc_mcontext.sp);
#else
        (void)context;
#endif
        if (trap->state) {
            r.thread = trap->state->thread_idx;
            r.block = trap->state->block_idx;
        }
        siglongjmp(trap->env, 1);
    }
    // Not a kernel's fault: hand it to the previous handler, or die the default way.
    if (g_unhandled_hook) g_unhandled_hook(sig, info, context);
    const int slot = signal_slot(sig);
    const struct sigaction& prev = previous_actions[slot < 0 ? 0 : slot];
    if ((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction) {
        prev.sa_sigaction(sig, info, context);
        return;
    }
    if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN && prev.sa_handler) {
        prev.sa_handler(sig);
        return;
    }
    // Restore the default action; returning re-executes the faulting instruction, which then kills us.
    signal(sig, SIG_DFL);
}

}  // namespace

void install_fault_handlers() {
    static std::once_flag once;
    std::call_once(once, [] {
        for (int i = 0; i < 4; ++i) {
            struct sigaction action {};
            action.sa_sigaction = on_fault;
            action.sa_flags = SA_SIGINFO | SA_ONSTACK;
            sigemptyset(&action.sa_mask);
            sigaction(kSignals[i], &action, &previous_actions[i]);
        }
    });
}

void set_thread_fault_trap(FaultTrap* trap) { tls_trap = trap; }

const FaultTrap* current_fault_trap() { return tls_trap; }

void set_unhandled_fault_hook(UnhandledFaultHook hook) { g_unhandled_hook = hook; }

namespace {

// Kept apart so that nothing it leaves on the stack is needed after a crash jumps back to the sigsetjmp.
__attribute__((noinline)) bool run_trapped(FaultTrap& trap, void (*fn)(void**), void** args) {
    if (sigsetjmp(trap.env, 1) != 0) return false;
    trap.armed = 1;
    fn(args);
    trap.armed = 0;
    return true;
}

}  // namespace

std::optional<FaultRecord> call_with_fault_trap(void (*fn)(void**), void** args) {
    install_fault_handlers();
    thread_local AltSignalStack alt_stack;  // the handler must run even when the stack overflowed
    FaultTrap trap;
    FaultTrap* previous = tls_trap;
    tls_trap = &trap;
    const bool returned = run_trapped(trap, fn, args);
    trap.armed = 0;
    tls_trap = previous;
    if (returned) return std::nullopt;
    alt_stack.forget_frames();
    return trap.record;
}

AltSignalStack::AltSignalStack() {
    bytes_ = 256 * 1024;
    void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;
    memory_ = p;
    stack_t ss{};
    ss.ss_sp = memory_;
    ss.ss_size = bytes_;
    ss.ss_flags = 0;
    sigaltstack(&ss, nullptr);
}

void AltSignalStack::forget_frames() {
    if (memory_) forget_stack_poison(memory_, bytes_);
}

AltSignalStack::~AltSignalStack() {
    if (!memory_) return;
    forget_stack_poison(memory_, bytes_);  // the handler's frames were left by siglongjmp
    stack_t ss{};
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, nullptr);
    ::munmap(memory_, bytes_);
}

}  // namespace cp
