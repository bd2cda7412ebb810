// The block scheduler: plain loop first, fibers after the first barrier or warp operation.
//
// Fibers switch directly to the next runnable thread; when none is left, control returns to the worker's
// own stack (kMain), which releases whatever can continue (complete warp groups first, then the block
// barrier) or, when nothing can, reports the stall. A block never leaves the OS thread it started on.
#include "core/cpu/block_scheduler.h"

#include "core/cpu/debug_recorder.h"
#include "core/cpu/sanitizer_support.h"
#include "core/cpu/static_shared.h"
#include "core/cpu/warp_ops.h"

#include <algorithm>
#include <random>
#include <sys/mman.h>
#include <unistd.h>

namespace cp {
namespace ctx = boost::context::detail;

namespace {

thread_local BlockScheduler* tls_scheduler = nullptr;

BlockScheduler* scheduler_of(void* block) { return static_cast<BlockScheduler*>(block); }

int api_sync_threads(void* block, int kind, int predicate, int line) {
    return scheduler_of(block)->on_sync_threads(kind, predicate, line);
}
unsigned long long api_warp_op(void* block, const cp_abi::WarpRequest* request) {
    return scheduler_of(block)->on_warp_op(*request);
}
void api_print(void* block, const char* text, size_t length) { scheduler_of(block)->on_print(text, length); }
[[noreturn]] void api_fail(void* block, int kind, const char* what, int line) {
    scheduler_of(block)->on_fail(kind, what, line);
}

void api_debug_step(void* block, int line, const char* names, const cp_abi::DebugValue* values, unsigned count) {
    scheduler_of(block)->on_debug_step(line, names, values, count);
}

const cp_abi::HostApi kHostApi = {api_sync_threads, api_warp_op,       api_print, api_fail, StaticSharedArrays::host_call,
                                  api_debug_step};

}  // namespace

// ---- fiber stacks ----

FiberStackPool::~FiberStackPool() {
    for (const Stack& s : stacks_) {
        forget_stack_poison(s.map + kGuardBytes, kStackBytes);
        ::munmap(s.map, s.map_bytes);
    }
}

void* FiberStackPool::acquire_top() {
    if (used_ == stacks_.size()) {
        Stack s;
        s.map_bytes = kGuardBytes + kStackBytes;
        void* p = ::mmap(nullptr, s.map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) return nullptr;
        s.map = static_cast<std::byte*>(p);
        ::mprotect(s.map, kGuardBytes, PROT_NONE);  // if this fails the stack merely has no guard
        stacks_.push_back(s);
    }
    // Stagger the tops: identical page offsets would put every fiber's hot frames in the same L1 sets.
    const size_t index = used_++;
    const Stack& s = stacks_[index];
    forget_stack_poison(s.map + kGuardBytes, kStackBytes);  // frames abandoned by the last block
    return s.map + s.map_bytes - (index % 8) * 512 - (index / 8 % 8) * 64;
}

bool FiberStackPool::in_guard(uintptr_t address) const {
    return std::any_of(stacks_.begin(), stacks_.end(), [&](const Stack& s) {
        const auto begin = reinterpret_cast<uintptr_t>(s.map);
        return address >= begin && address < begin + kGuardBytes;
    });
}

// ---- launch and block ----

BlockScheduler::BlockScheduler() = default;

const cp_abi::HostApi* BlockScheduler::host_api() { return &kHostApi; }

void BlockScheduler::begin_launch(const BlockLaunch& launch, cp_abi::ThreadState* state) {
    launch_ = launch;
    state_ = state;
    tls_scheduler = this;
    const cp_abi::Uint3 d = launch.block_dim;
    threads_ = d.x * d.y * d.z;
    thread_index_.resize(threads_);
    for (unsigned i = 0; i < threads_; ++i) thread_index_[i] = {i % d.x, (i / d.x) % d.y, i / (d.x * d.y)};
    order_.resize(threads_);
    for (unsigned i = 0; i < threads_; ++i) order_[i] = launch.order == ThreadOrder::Reversed ? threads_ - 1 - i : i;
    slots_.assign(threads_, Slot{});
    size_t ring = 1;
    while (ring < threads_) ring *= 2;
    queue_.assign(ring, 0);
    queue_mask_ = ring - 1;
    warp_waiting_.assign((threads_ + 31) / 32, 0);
    warp_live_.assign((threads_ + 31) / 32, 0);
    alive_order_.reserve(threads_);
    plain_run_.order = launch.order == ThreadOrder::Natural ? nullptr : order_.data();
    plain_run_.count = threads_;
    plain_run_.promoted = &promoted_;
    printed_bytes_ = 0;
    dropped_lines_ = dropped_bytes_ = 0;
}

void BlockScheduler::make_order(uint64_t linear_block) {
    if (launch_.order != ThreadOrder::Shuffled) return;
    for (unsigned i = 0; i < threads_; ++i) order_[i] = i;
    std::mt19937_64 rng(launch_.seed * 0x9E3779B97F4A7C15ull + linear_block);
    std::shuffle(order_.begin(), order_.end(), rng);
}

bool BlockScheduler::run_block(uint64_t linear_block) {
    make_order(linear_block);
    promoted_ = 0;
    block_done_ = false;
    failed_ = false;
    queue_head_ = queue_tail_ = 0;
    block_output_.clear();
    stacks_.release_all();
    step_waiting_ = 0;

    void* top = stacks_.acquire_top();
    if (!top) {
        failure_ = {"OUT_OF_MEMORY", block_name() + ": no memory for a thread stack", "run a smaller block",
                    ErrorKind::OutOfMemory};
        return false;
    }
    plain_ctx_ = ctx::make_fcontext(top, FiberStackPool::kStackBytes, &BlockScheduler::plain_main);
    current_ = kPlain;
    ctx::transfer_t back = ctx::jump_fcontext(plain_ctx_, &main_ctx_);
    *static_cast<Context*>(back.data) = back.fctx;

    // Back on the worker's stack: every live thread is blocked, or the block is done, or it failed.
    for (;;) {
        if (failed_) break;
        if (block_done_ || (promoted_ && alive_ == 0)) break;
        if (!release_waiting_threads()) {
            describe_stall();
            failed_ = true;
            break;
        }
        switch_to(pop_runnable());
    }
    stacks_.release_all();
    if (launch_.debug) launch_.debug->end_round();  // the last statements' shared memory
    return !failed_;
}

void BlockScheduler::recover_from_fault() {
    // The crashed thread's fiber and the others are simply abandoned: their stacks return to the pool.
    stacks_.release_all();
    current_ = kMain;
    promoted_ = 0;
    queue_head_ = queue_tail_ = 0;
    block_output_.clear();
    tls_scheduler = this;
}

std::string BlockScheduler::take_block_output() { return std::move(block_output_); }

// ---- fibers ----

void BlockScheduler::plain_main(ctx::transfer_t from) {
    *static_cast<Context*>(from.data) = from.fctx;
    BlockScheduler* s = tls_scheduler;
    s->launch_.entry->run_plain(s->launch_.args, &s->plain_run_);
    if (!s->promoted_) {
        s->block_done_ = true;
        s->switch_to(kMain);  // never resumed
    }
    s->exit_current_thread();  // the thread this fiber became at the first barrier has returned
}

void BlockScheduler::fiber_main(ctx::transfer_t from) {
    *static_cast<Context*>(from.data) = from.fctx;
    BlockScheduler* s = tls_scheduler;
    s->launch_.entry->run_one(s->launch_.args);
    s->exit_current_thread();
}

void BlockScheduler::set_running_thread(unsigned linear) {
    state_->thread_idx = thread_index_[linear];
    state_->linear_tid = linear;
}

void BlockScheduler::switch_to(int target) {
    Context* my_slot = current_ >= 0 ? &slots_[size_t(current_)].ctx : current_ == kMain ? &main_ctx_ : &plain_ctx_;
    Context to = main_ctx_;
    if (target >= 0) {
        Slot& s = slots_[size_t(target)];
        if (s.status == Status::NotStarted) {
            void* top = stacks_.acquire_top();
            if (!top) on_fail(cp_abi::kUnsupported, "no memory for another thread stack", 0);
            s.ctx = ctx::make_fcontext(top, FiberStackPool::kStackBytes, &BlockScheduler::fiber_main);
        }
        s.status = Status::Running;
        set_running_thread(unsigned(target));
        to = s.ctx;
    }
    current_ = target;
    ctx::transfer_t back = ctx::jump_fcontext(to, my_slot);
    // Resumed: whoever switched here set current_ and the thread state; keep their context.
    *static_cast<Context*>(back.data) = back.fctx;
}

// A thread is in the queue at most once (only blocked threads are queued), so the ring never overflows.
void BlockScheduler::push_runnable(unsigned linear) { queue_[queue_tail_++ & queue_mask_] = linear; }

int BlockScheduler::pop_runnable() {
    if (queue_head_ == queue_tail_) return kMain;
    return int(queue_[queue_head_++ & queue_mask_]);
}

// The common case, inlined into the barrier and warp calls: the next thread already has a fiber. Inlined
// because jump_fcontext resumes with a jump, not a return, so every return after it is mispredicted:
// the fewer frames between the kernel and the switch, the fewer such returns.
__attribute__((always_inline)) inline void BlockScheduler::block_until_released() {
    const int next = pop_runnable();
    if (next < 0 || slots_[size_t(next)].status == Status::NotStarted) {
        switch_to(next);
        return;
    }
    Slot& to = slots_[size_t(next)];
    to.status = Status::Running;
    set_running_thread(unsigned(next));
    Context* my_slot = &slots_[size_t(current_)].ctx;
    current_ = next;
    ctx::transfer_t back = ctx::jump_fcontext(to.ctx, my_slot);
    *static_cast<Context*>(back.data) = back.fctx;
}

void BlockScheduler::exit_current_thread() {
    slots_[size_t(current_)].status = Status::Exited;
    --alive_;
    --warp_live_[unsigned(current_) / 32];
    alive_order_stale_ = true;
    switch_to(pop_runnable());
    __builtin_unreachable();  // an exited thread is never switched to again
}

// The first barrier or warp operation: the threads before this one in the run order have returned; this
// one keeps the plain loop's fiber; the rest get their own fibers when first scheduled.
void BlockScheduler::promote() {
    promoted_ = 1;
    const unsigned me = state_->linear_tid, position = state_->order_pos;
    for (unsigned p = 0; p < threads_; ++p) {
        Slot& s = slots_[order_[p]];
        s.ctx = nullptr;
        s.status = p < position ? Status::Exited : Status::NotStarted;
        if (p > position) push_runnable(order_[p]);
    }
    slots_[me].status = Status::Running;
    alive_ = threads_ - position;
    alive_order_stale_ = true;
    barrier_arrived_ = barrier_true_ = 0;
    barrier_mismatch_ = false;
    std::fill(warp_waiting_.begin(), warp_waiting_.end(), 0u);
    warp_waiting_total_ = 0;
    for (unsigned w = 0; w < warp_live_.size(); ++w) {
        warp_live_[w] = 0;
        for (unsigned i = w * 32; i < std::min(threads_, w * 32 + 32); ++i)
            warp_live_[w] += slots_[i].status != Status::Exited ? 1 : 0;
    }
    current_ = int(me);
}

// ---- host calls ----

__attribute__((always_inline)) inline int BlockScheduler::on_sync_threads(int kind, int predicate, int line) {
    if (!promoted_) promote();
    Slot& me = slots_[size_t(current_)];
    me.status = Status::AtBarrier;
    me.kind = kind;
    me.predicate = predicate;
    me.line = line;
    if (barrier_arrived_++ == 0) {
        barrier_line_ = line;
        barrier_kind_ = kind;
        barrier_mismatch_ = false;
        barrier_true_ = 0;
    } else if (line != barrier_line_ || kind != barrier_kind_) {
        barrier_mismatch_ = true;
    }
    barrier_true_ += predicate ? 1 : 0;
    block_until_released();
    return int(barrier_result_);
}

__attribute__((always_inline)) inline unsigned long long BlockScheduler::on_warp_op(const cp_abi::WarpRequest& request) {
    if (!promoted_) promote();
    Slot& me = slots_[size_t(current_)];
    me.status = request.op == cp_abi::kActiveMask ? Status::AtActiveMask : Status::AtWarp;
    me.warp = request;
    me.line = request.line;
    const unsigned warp = unsigned(current_) / 32, lane = unsigned(current_) % 32;
    ++warp_waiting_[warp];
    ++warp_waiting_total_;
    // The last lane of the warp to arrive completes the group itself and carries on: no trip through the
    // worker's stack. The other lanes it releases are queued.
    if (request.op != cp_abi::kActiveMask && warp_waiting_[warp] == warp_live_[warp]) {
        const unsigned released = release_warp(warp, false);
        if (released) {
            const bool reversed = launch_.order == ThreadOrder::Reversed;
            for (unsigned k = 0; k < 32; ++k) {
                const unsigned l = reversed ? 31 - k : k;
                if (l != lane && ((released >> l) & 1u)) push_runnable(warp * 32 + l);
            }
            if ((released >> lane) & 1u) {
                me.status = Status::Running;
                return me.result;
            }
        }
    }
    block_until_released();
    return me.result;
}

// A debugger's probe: recorded, then the thread waits for the round to end (every other thread that can run
// has run one statement too), as a warp's lanes run each statement together on a GPU.
void BlockScheduler::on_debug_step(int line, const char* names, const cp_abi::DebugValue* values, unsigned count) {
    if (!launch_.debug) return;
    if (!promoted_) promote();
    launch_.debug->step(unsigned(current_), line, names, values, count);
    Slot& me = slots_[size_t(current_)];
    me.status = Status::AtStep;
    me.line = line;
    ++step_waiting_;
    block_until_released();
}

void BlockScheduler::on_print(const char* text, size_t length) {
    if (!launch_.capture_printf) return;
    if (printed_bytes_ + length > launch_.printf_limit) {
        // Past the limit, as CUDA's fixed-size printf buffer drops it: counted, so the pool can say how much
        // was not shown (worker_pool.cpp), and kept out of memory.
        printed_bytes_ = launch_.printf_limit + 1;
        dropped_lines_ += uint64_t(std::count(text, text + length, '\n'));
        dropped_bytes_ += length;
        return;
    }
    printed_bytes_ += length;
    block_output_.append(text, length);
}

void BlockScheduler::on_fail(int kind, const char* what, int line) {
    const unsigned linear = state_->linear_tid;
    const std::string where = thread_name(linear) + " of " + block_name();
    const std::string at = line > 0 ? " (line " + std::to_string(line) + ")" : "";
    if (kind == cp_abi::kAssert) {
        failure_ = {"ASSERT", where + ": assertion `" + std::string(what) + "` failed" + at,
                    "the kernel's own check failed for this thread; print the values involved to see why"};
    } else if (kind == cp_abi::kTrap) {
        failure_ = {"TRAP", where + " executed " + std::string(what) + at, "the kernel stopped itself on purpose"};
    } else {
        failure_ = {"CPU_BACKEND_LIMIT", where + ": " + std::string(what) + at, "run a smaller block",
                    ErrorKind::Unsupported};
    }
    failed_ = true;
    switch_to(kMain);  // never resumed: the block is abandoned
    __builtin_unreachable();
}

// ---- releasing waiting threads (on the worker's stack) ----

bool BlockScheduler::release_waiting_threads() {
    queue_head_ = queue_tail_ = 0;
    if (step_waiting_) {
        if (launch_.debug_warp >= 0 && release_focus_warp()) return true;
        return release_steps();
    }
    if (warp_waiting_total_) {
        bool released = false;
        for (unsigned w = 0; w * 32 < threads_; ++w)
            if (warp_waiting_[w]) released |= release_warp(w, true) != 0;
        if (released) {
            for (unsigned p = 0; p < threads_; ++p)
                if (slots_[order_[p]].status == Status::Runnable) push_runnable(order_[p]);
            return true;
        }
    }
    return release_barrier();
}

unsigned BlockScheduler::release_warp(unsigned warp, bool include_active_mask) {
    const unsigned base = warp * 32, count = std::min(32u, threads_ - base);
    const unsigned present = count == 32 ? ~0u : (1u << count) - 1;
    unsigned exited = 0, at_warp = 0, at_active = 0;
    for (unsigned lane = 0; lane < count; ++lane) {
        const Status st = slots_[base + lane].status;
        if (st == Status::Exited) exited |= 1u << lane;
        if (st == Status::AtWarp) at_warp |= 1u << lane;
        if (st == Status::AtActiveMask) at_active |= 1u << lane;
    }
    if (!at_warp && !at_active) return 0;
    const unsigned live = present & ~exited;
    auto group_of = [&](unsigned lane) { return (slots_[base + lane].warp.mask | (1u << lane)) & live; };

    unsigned released = 0;
    unsigned handled = 0;
    for (unsigned lane = 0; lane < count; ++lane) {
        const unsigned bit = 1u << lane;
        if (!(at_warp & bit) || (handled & bit)) continue;
        const unsigned group = group_of(lane);
        if (group & ~at_warp & ~handled) continue;  // someone named in the mask has not arrived yet
        if (group & handled) continue;
        bool agree = true;  // CUDA: every lane in the mask executes the same operation with the same mask
        for (unsigned j = 0; j < 32; ++j)
            if ((group >> j) & 1u)
                agree = agree && slots_[base + j].warp.op == slots_[base + lane].warp.op && group_of(j) == group;
        if (!agree) continue;
        const cp_abi::WarpRequest* requests[32] = {};
        unsigned long long results[32] = {};
        for (unsigned j = 0; j < 32; ++j)
            if ((group >> j) & 1u) requests[j] = &slots_[base + j].warp;
        compute_warp_results(group, requests, results);
        for (unsigned j = 0; j < 32; ++j)
            if ((group >> j) & 1u) {
                slots_[base + j].result = results[j];
                slots_[base + j].status = Status::Runnable;
            }
        const unsigned lanes = unsigned(__builtin_popcount(group));
        warp_waiting_[warp] -= lanes;
        warp_waiting_total_ -= lanes;
        handled |= group;
        released |= group;
    }
    // __activemask: when nothing else in the warp can move, the lanes waiting at the same call are the
    // ones that would be executing together on a GPU.
    if (!released && at_active && include_active_mask) {
        for (unsigned lane = 0; lane < count; ++lane) {
            if (!((at_active >> lane) & 1u)) continue;
            unsigned together = 0;
            for (unsigned j = lane; j < count; ++j)
                if (((at_active >> j) & 1u) && slots_[base + j].line == slots_[base + lane].line) together |= 1u << j;
            for (unsigned j = lane; j < count; ++j)
                if ((together >> j) & 1u) {
                    slots_[base + j].result = together;
                    slots_[base + j].status = Status::Runnable;
                }
            const unsigned lanes = unsigned(__builtin_popcount(together));
            warp_waiting_[warp] -= lanes;
            warp_waiting_total_ -= lanes;
            at_active &= ~together;
            released |= together;
        }
    }
    return released;
}

// The round is over: every thread that could run reached its next probe (or a barrier, a warp operation, its
// end). Shared memory now is the round's; the threads at a probe run their next statement, in the run order.
bool BlockScheduler::release_steps() {
    launch_.debug->end_round();
    for (unsigned p = 0; p < threads_; ++p) {
        Slot& s = slots_[order_[p]];
        if (s.status != Status::AtStep) continue;
        s.status = Status::Runnable;
        push_runnable(order_[p]);
    }
    step_waiting_ = 0;
    return true;
}

// The watched warp steps alone (BlockLaunch::debug_warp): while any of its threads is at a probe, the round ends
// and only they run their next statement; while its lanes wait at a warp operation they can pass, they pass it.
// False when it can do neither (at a barrier, returned): then the others step, together.
bool BlockScheduler::release_focus_warp() {
    const unsigned base = unsigned(launch_.debug_warp) * 32;
    if (base >= threads_) return false;
    const unsigned count = std::min(32u, threads_ - base);
    unsigned stepping = 0;
    for (unsigned lane = 0; lane < count; ++lane) stepping += slots_[base + lane].status == Status::AtStep;
    if (stepping) {
        launch_.debug->end_round();
        for (unsigned p = 0; p < threads_; ++p) {
            const unsigned t = order_[p];
            if (t < base || t >= base + count || slots_[t].status != Status::AtStep) continue;
            slots_[t].status = Status::Runnable;
            push_runnable(t);
        }
        step_waiting_ -= stepping;
        return true;
    }
    const unsigned warp = base / 32;
    if (!warp_waiting_[warp] || !release_warp(warp, true)) return false;
    for (unsigned p = 0; p < threads_; ++p) {
        const unsigned t = order_[p];
        if (t >= base && t < base + count && slots_[t].status == Status::Runnable) push_runnable(t);
    }
    return true;
}

// Every thread of the block is at the same barrier: release them all. A thread that has returned never
// reaches it, which CUDA leaves undefined (a GPU usually lets the others pass, with whatever the returned
// threads did not write): not released, so describe_stall() reports it.
// Their status stays AtBarrier until each is switched to; nothing reads it before then.
bool BlockScheduler::release_barrier() {
    if (!barrier_arrived_ || barrier_arrived_ != alive_ || barrier_mismatch_ || warp_waiting_total_) return false;
    if (alive_ != threads_) return false;
    switch (barrier_kind_) {
        case cp_abi::kSyncThreadsCount: barrier_result_ = barrier_true_; break;
        case cp_abi::kSyncThreadsAnd: barrier_result_ = barrier_true_ == barrier_arrived_ ? 1 : 0; break;
        case cp_abi::kSyncThreadsOr: barrier_result_ = barrier_true_ ? 1 : 0; break;
        default: barrier_result_ = 0; break;
    }
    barrier_arrived_ = 0;
    if (launch_.debug) launch_.debug->at_barrier();  // the debugger's stop at this barrier
    if (alive_order_stale_) {
        alive_order_.clear();
        for (unsigned p = 0; p < threads_; ++p)
            if (slots_[order_[p]].status != Status::Exited) alive_order_.push_back(order_[p]);
        alive_order_stale_ = false;
    }
    std::copy(alive_order_.begin(), alive_order_.end(), queue_.begin());
    queue_tail_ = alive_order_.size();
    return true;
}

}  // namespace cp
