// Worker threads for the CPU backend: wake on a launch, take chunks of blocks, report crashes and stalls.
#include "core/cpu/worker_pool.h"

#include "core/cpu/debug_recorder.h"

#include <algorithm>

namespace cp {

namespace {

// The blockIdx of the block with linear index `b` (x fastest).
Dim3 block_index_in(Dim3 grid, uint64_t b) {
    const uint64_t gx = grid.x, gxy = uint64_t(grid.x) * grid.y;
    return {unsigned(b % gx), unsigned((b % gxy) / gx), unsigned(b / gxy)};
}

}  // namespace

WorkerPool::WorkerPool(int workers, StateObserver observer) : observer_(observer) {
    install_fault_handlers();
    for (int i = 0; i < std::max(1, workers); ++i) {
        workers_.push_back(std::make_unique<Worker>());
        workers_.back()->index = i;
    }
    for (auto& w : workers_) {
        Worker* raw = w.get();
        w->thread = std::thread([this, raw] { worker_loop(*raw); });
    }
}

WorkerPool::~WorkerPool() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    for (auto& w : workers_) w->thread.join();
}

namespace {

WorkerFaultPlace static_shared_place(const StaticSharedArrays::Hit& array, bool found_after_launch) {
    WorkerFaultPlace place;
    place.kind = WorkerFaultPlace::Kind::StaticShared;
    place.location = array.location;
    place.shared_bytes = array.bytes;
    place.array_name = array.name;
    place.element_size = array.element_size;
    place.extents = array.extents;
    place.found_after_launch = found_after_launch;
    return place;
}

}  // namespace

GridOutcome WorkerPool::run(const GridLaunch& launch) {
    const uint64_t total = launch.grid.count();
    {
        std::unique_lock lock(mutex_);
        job_ = &launch;
        job_start_ = std::chrono::steady_clock::now();
        total_blocks_ = total;
        // Small chunks keep the workers evenly loaded; more than one block per grab keeps them off the counter.
        chunk_ = std::clamp<uint64_t>(total / (uint64_t(workers_.size()) * 16), 1, 16);
        next_block_.store(0);
        first_failure_.store(UINT64_MAX);
        busy_ = int(workers_.size());
        ++generation_;
    }
    wake_.notify_all();
    {
        std::unique_lock lock(mutex_);
        done_.wait(lock, [this] { return busy_ == 0; });
        job_ = nullptr;
    }

    GridOutcome out;
    // A write just before a static __shared__ array's start lands in its first page without faulting (as
    // for buffers, cpu_executor.cpp): unless the per-access check stopped it, found now, without the thread.
    for (auto& w : workers_) {
        const auto array = w->static_shared.written_outside();  // restores the pattern whatever happened
        if (array && !w->failed) {
            w->failed = true;
            w->failure = GridFailure{};
            w->failure.block = total;  // after every block that failed on the spot
            w->failure.place = static_shared_place(*array, true);
        }
    }
    std::vector<std::pair<uint64_t, std::string>> printed;
    uint64_t dropped_lines = 0, dropped_bytes = 0;
    for (auto& w : workers_) {
        dropped_lines += w->scheduler.dropped_printf_lines();
        dropped_bytes += w->scheduler.dropped_printf_bytes();
        if (w->failed && (out.ok || w->failure.block < out.failure.block)) {
            out.ok = false;
            out.failure = w->failure;
        }
        for (auto& p : w->printed) printed.push_back(std::move(p));
        w->printed.clear();
    }
    std::stable_sort(printed.begin(), printed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& p : printed) out.printf_output += p.second;
    if (launch.capture_printf)
        out.printf_output = cap_printf_output(std::move(out.printf_output), dropped_lines, dropped_bytes);
    return out;
}

namespace {

// 3000 -> "3,000"
std::string with_commas(uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

}  // namespace

std::string cap_printf_output(std::string text, uint64_t dropped_lines, uint64_t dropped_bytes, size_t max_lines,
                              size_t max_bytes) {
    size_t lines = 0, cut = std::string::npos;
    for (size_t i = 0; i < text.size(); ++i) {
        if (i == max_bytes) {  // whole lines only: back to the last line's end
            const size_t eol = text.rfind('\n', i - 1);
            cut = eol == std::string::npos ? i : eol + 1;
            break;
        }
        if (text[i] != '\n') continue;
        if (++lines == max_lines) {
            cut = i + 1;
            break;
        }
    }
    if (cut != std::string::npos && cut < text.size()) {
        const uint64_t rest = uint64_t(std::count(text.begin() + long(cut), text.end(), '\n'));
        dropped_lines += rest;
        dropped_bytes += text.size() - cut;
        if (text.back() != '\n') ++dropped_lines;  // the unfinished last line
        text.resize(cut);
    }
    if (dropped_bytes == 0) return text;
    if (!text.empty() && text.back() != '\n') text += '\n';
    const std::string what = dropped_lines > 0 ? with_commas(dropped_lines) + (dropped_lines == 1 ? " line" : " lines")
                                               : with_commas(dropped_bytes) + " bytes";
    // "..." rather than an ellipsis character: the window's font has Latin-1 glyphs only.
    const std::string limit = max_bytes >= (size_t(1) << 20) ? std::to_string(max_bytes >> 20) + " MiB"
                                                               : with_commas(max_bytes) + " bytes";
    return text + "... " + what + " not shown (a launch's printf output is kept up to " + with_commas(max_lines) +
           " lines and " + limit + ", as CUDA keeps it in a fixed-size buffer)\n";
}

void WorkerPool::worker_loop(Worker& w) {
    AltSignalStack alt_stack;  // the handler must run even when a fiber's stack overflowed
    w.alt_stack = &alt_stack;
    set_thread_fault_trap(&w.trap);
    uint64_t seen = 0;
    for (;;) {
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
            if (stopping_) break;
            seen = generation_;
        }
        execute(w);
        {
            std::lock_guard lock(mutex_);
            --busy_;
        }
        done_.notify_all();
    }
    set_thread_fault_trap(nullptr);
}

void WorkerPool::execute(Worker& w) {
    const GridLaunch& job = *job_;
    w.failed = false;
    w.printed.clear();
    if (job.dynamic_shared_bytes && w.dynamic_shared.size() != job.dynamic_shared_bytes) {
        // 16-byte aligned, as on a GPU, where kernels carve vector types out of it: up to 15 bytes past its
        // end are then left to the per-access check (access_bounds.h).
        auto buffer = GuardedBuffer::allocate(job.dynamic_shared_bytes, 16);
        if (!buffer) {
            w.failed = true;
            w.failure.block = 0;
            w.failure.block_failure =
                BlockFailure{"OUT_OF_MEMORY", buffer.error().message, buffer.error().hint, ErrorKind::OutOfMemory};
            note_failure(0);
            return;
        }
        w.dynamic_shared = std::move(*buffer);
    }
    cp_abi::ThreadState* state = job.module->thread_state();
    if (w.static_shared_module != job.module->serial()) {  // another library: its own declarations
        w.static_shared.forget();
        w.static_shared_module = job.module->serial();
    }
    w.static_shared.attach(state);
    state->block_dim = {job.block.x, job.block.y, job.block.z};
    state->grid_dim = {job.grid.x, job.grid.y, job.grid.z};
    state->dynamic_shared = job.dynamic_shared_bytes ? w.dynamic_shared.data() : nullptr;
    state->block = &w.scheduler;
    state->host = BlockScheduler::host_api();

    BlockLaunch block_launch;
    block_launch.entry = job.entry;
    block_launch.args = job.args;
    block_launch.block_dim = state->block_dim;
    block_launch.order = job.order;
    block_launch.seed = job.seed;
    block_launch.capture_printf = job.capture_printf;
    block_launch.printf_limit = kPrintfShownBytes;  // each worker's share may be all that is shown
    std::optional<DebugRecorder> debug;
    if (job.debug_block) {
        if (w.index != 0) return;  // one block, on the first worker
        debug.emplace(block_index_in(job.grid, *job.debug_block), job.block, &w.static_shared, &w.dynamic_shared,
                      job.debug_globals);
        block_launch.debug = &*debug;
        block_launch.debug_warp = job.debug_warp;
        debug->set_focus_warp(job.debug_warp);
        DebugRecorder::set_target(&*debug);  // a stepping copy with access calls hands them over
    }
    w.scheduler.begin_launch(block_launch, state);
    w.trap.state = state;
    if (observer_) observer_(w.index, state);
    run_blocks(w, state);
    if (debug) DebugRecorder::set_target(nullptr);
    if (debug && job.debug_out) *job.debug_out = debug->take();  // a block that failed: up to where it stopped
}

void WorkerPool::note_failure(uint64_t block) {
    uint64_t seen = first_failure_.load();
    while (block < seen && !first_failure_.compare_exchange_weak(seen, block)) {
    }
}

// Kept apart so that nothing it leaves on the stack is needed after a crash jumps back to the sigsetjmp.
__attribute__((noinline)) void WorkerPool::run_blocks(Worker& w, cp_abi::ThreadState* state) {
    if (sigsetjmp(w.trap.env, 1) != 0) {
        w.trap.armed = 0;
        w.alt_stack->forget_frames();  // the signal handler's frame was left, not returned from
        if (job_->capture_printf) {  // what the crashed block printed before the crash helps find it
            std::string text = w.scheduler.take_block_output();
            if (!text.empty()) w.printed.emplace_back(w.current_block, std::move(text));
        }
        w.scheduler.recover_from_fault();
        w.failed = true;
        w.failure = GridFailure{};
        w.failure.block = w.current_block;
        w.failure.fault = w.trap.record;
        const uintptr_t address = w.trap.record.address;
        if (w.dynamic_shared.size() && w.dynamic_shared.locate(address).where != GuardedBuffer::Where::Outside) {
            w.failure.place.kind = WorkerFaultPlace::Kind::DynamicShared;
            w.failure.place.location = w.dynamic_shared.locate(address);
            w.failure.place.shared_bytes = w.dynamic_shared.size();
        } else if (const auto array = w.static_shared.locate(address)) {
            w.failure.place = static_shared_place(*array, false);
        } else if (w.scheduler.stack_guard_contains(address) || w.scheduler.stack_guard_contains(w.trap.record.stack_pointer)) {
            w.failure.place.kind = WorkerFaultPlace::Kind::StackGuard;
        }
        note_failure(w.current_block);
        return;
    }
    const GridLaunch& job = *job_;
    w.trap.armed = 1;
    if (job.debug_block) {  // the one block the debugger records, on this (the first) worker
        run_one_block(w, state, *job.debug_block);
        w.trap.armed = 0;
        return;
    }
    for (;;) {
        const uint64_t first = next_block_.fetch_add(chunk_);
        if (first >= total_blocks_ || first > first_failure_.load(std::memory_order_relaxed)) break;
        const uint64_t last = std::min(total_blocks_, first + chunk_);
        // Blocks are handed out in order: once one is past the recording's end, so is every later one.
        const auto past_end = [&](uint64_t b) {
            return job.blocks_end && b >= job.blocks_end->load(std::memory_order_relaxed);
        };
        if (past_end(first)) break;
        for (uint64_t b = first; b < last && b < first_failure_.load(std::memory_order_relaxed) && !past_end(b); ++b)
            if (!run_one_block(w, state, b)) return;
    }
    w.trap.armed = 0;
}

// Block `b` on worker `w`: its blockIdx, its run, its trace and printf; a failure is recorded (false, the trap
// disarmed). A crash does not return here: it jumps back to run_blocks' sigsetjmp.
bool WorkerPool::run_one_block(Worker& w, cp_abi::ThreadState* state, uint64_t b) {
    const GridLaunch& job = *job_;
    w.current_block = b;
    const Dim3 index = block_index_in(job.grid, b);
    state->block_idx = {index.x, index.y, index.z};
    const auto started = std::chrono::steady_clock::now();
    const bool ran = w.scheduler.run_block(b);
    if (job.blocks_done) job.blocks_done->fetch_add(1, std::memory_order_relaxed);
    if (job.trace) {
        const auto since = [&](std::chrono::steady_clock::time_point t) {
            return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(t - job_start_).count());
        };
        (*job.trace)[b] = BlockTrace{b, uint32_t(w.index), since(started), since(std::chrono::steady_clock::now())};
    }
    if (!ran) w.trap.armed = 0;
    if (job.capture_printf) {
        std::string text = w.scheduler.take_block_output();
        if (!text.empty()) w.printed.emplace_back(b, std::move(text));
    }
    if (!ran) {
        w.failed = true;
        w.failure = GridFailure{};
        w.failure.block = b;
        w.failure.block_failure = w.scheduler.failure();
        note_failure(b);
    }
    return ran;
}

}  // namespace cp
