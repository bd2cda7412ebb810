// Signal handling for kernel crashes: record, then siglongjmp out of the handler to the worker loop.
#include "core/cpu/fault_trap.h"

#include "core/cpu/sanitizer_support.h"

#include <sys/mman.h>
#include <ucontext.h>
#include <mutex>

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

#if defined(__x86_64__)
// The memory operand of a legacy-encoded SSE instruction (0F xx, with 66/F2/F3 and REX prefixes), as the
// kernel library's code holds them (it is compiled without -mavx): the aligned moves and arithmetic whose
// 16-byte memory operand must be 16-byte aligned. False for anything else. Async-signal-safe.
bool sse_memory_operand(const unsigned char* code, const greg_t* gregs, uintptr_t* address, int* access) {
    static constexpr int kReg[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                                     REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};
    const unsigned char* p = code;
    for (int i = 0; i < 4 && (*p == 0x66 || *p == 0xF2 || *p == 0xF3); ++i) ++p;
    unsigned rex = 0;
    if ((*p & 0xF0) == 0x40) rex = *p++;
    if (*p++ != 0x0F) return false;
    const unsigned char op = *p++;
    bool imm8 = (op >= 0x70 && op <= 0x73) || op == 0xC2 || (op >= 0xC4 && op <= 0xC6);
    if (op == 0x38 || op == 0x3A) {
        imm8 = op == 0x3A;
        ++p;
    }
    const unsigned modrm = *p++, mod = modrm >> 6, rm = modrm & 7;
    if (mod == 3) return false;  // a register operand
    uintptr_t a = 0;
    bool rip_relative = false;
    if (rm == 4) {
        const unsigned sib = *p++, index = ((sib >> 3) & 7) | ((rex & 2) << 2), base = (sib & 7) | ((rex & 1) << 3);
        if (index != 4) a += uintptr_t(gregs[kReg[index]]) << (sib >> 6);
        if ((sib & 7) == 5 && mod == 0) {
            int32_t d;
            __builtin_memcpy(&d, p, 4);
            p += 4;
            a += uintptr_t(intptr_t(d));
        } else {
            a += uintptr_t(gregs[kReg[base]]);
        }
    } else if (rm == 5 && mod == 0) {
        rip_relative = true;
    } else {
        a += uintptr_t(gregs[kReg[rm | ((rex & 1) << 3)]]);
    }
    if (mod == 1 || rip_relative || mod == 2) {
        if (mod == 1) {
            a += uintptr_t(intptr_t(static_cast<signed char>(*p++)));
        } else {
            int32_t d;
            __builtin_memcpy(&d, p, 4);
            p += 4;
            a += uintptr_t(intptr_t(d));
        }
    }
    if (rip_relative) a += uintptr_t(p + (imm8 ? 1 : 0));
    *address = a;
    // Stores: movaps/movapd (29), movdqa (66 7F), movntps/pd (2B), movntdq (E7); everything else reads.
    *access = op == 0x29 || op == 0x7F || op == 0x2B || op == 0xE7 ? 2 : 1;
    return true;
}
#endif

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
        r.vector_operand = false;
#if defined(__x86_64__)
        const auto* uc = static_cast<const ucontext_t*>(context);
        r.instruction = uintptr_t(uc->uc_mcontext.gregs[REG_RIP]);
        r.stack_pointer = uintptr_t(uc->uc_mcontext.gregs[REG_RSP]);
        // Page-fault error code: bit 1 set for a write.
        if (sig == SIGSEGV) r.access = (uc->uc_mcontext.gregs[REG_ERR] & 2) ? 2 : 1;
        if (sig == SIGSEGV && info->si_code == SI_KERNEL) {  // general protection: no address, no error code
            r.access = 0;
            r.vector_operand = sse_memory_operand(reinterpret_cast<const unsigned char*>(r.instruction),
                                                  uc->uc_mcontext.gregs, &r.address, &r.access);
        }
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

void set_thread_fault_trap(FaultTrap* trap) {
    tls_trap = trap;
}

void raise_bounds_fault(uintptr_t address, int access, uintptr_t pc) {
    FaultTrap* trap = tls_trap;
    if (!trap || !trap->armed) return;
    trap->armed = 0;
    FaultRecord& r = trap->record;
    r = FaultRecord{};
    r.signal = SIGSEGV;
    r.code = SEGV_ACCERR;
    r.address = address;
    r.instruction = pc ? pc - 1 : 0;  // a return address: the call is the byte before
    r.access = access;
    if (trap->state) {
        r.thread = trap->state->thread_idx;
        r.block = trap->state->block_idx;
    }
    siglongjmp(trap->env, 1);
}

const FaultTrap* current_fault_trap() {
    return tls_trap;
}

void set_unhandled_fault_hook(UnhandledFaultHook hook) {
    g_unhandled_hook = hook;
}

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
