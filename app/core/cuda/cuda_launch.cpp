// CUDA backend, part 2: launching a kernel, and asking the occupancy API about one. Checks the configuration
// and arguments before the driver sees them, times warmup + repeats with events (optionally flushing L2 in
// between), captures device printf, and turns failures into plain words.
//
// Every launch of one request sees the same inputs: the argument buffers are copied aside before the
// first launch and copied back before each further one, so a kernel that updates its buffers in place
// (x[i] += 1, atomics, an in-place reverse) leaves them as after exactly one launch, and its repeats
// time the same work.
#include "core/cuda/cuda_backend.h"
#include "core/engine/trace_wrapper.h"

#include "core/cuda/stdout_capture.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>

namespace cp {

namespace {

constexpr int kMaxLaunches = 100000;

bool fits(const Dim3& d, const Dim3& max) { return d.x <= max.x && d.y <= max.y && d.z <= max.z; }

}  // namespace

CUfunction CudaBackend::find_function(LoadedModule& module, const std::string& kernel_name) {
    if (auto it = module.functions.find(kernel_name); it != module.functions.end()) return it->second;
    // Another extern "C" kernel of the same file: its symbol is its name.
    CUfunction fn = nullptr;
    if (d_.ModuleGetFunction(&fn, module.module, kernel_name.c_str()) != CUDA_SUCCESS) return nullptr;
    module.functions[kernel_name] = fn;
    return fn;
}

CUfunction CudaBackend::kernel_function(ModuleId module, const std::string& name, const std::string& subject,
                                        std::optional<EngineError>& error) {
    auto mod = modules_.find(module);
    if (mod == modules_.end()) {
        error = launch_refused("the module of " + subject + " is not loaded (it was released, or lost when the "
                        "context was reset).", "compile the kernel again");
        return nullptr;
    }
    CUfunction fn = find_function(mod->second, name);
    if (!fn) error = launch_refused("there is no kernel `" + name + "` in the compiled module.");
    return fn;
}

// A function's attributes do not change once it is loaded (raising its dynamic shared memory limit, as
// check_launch does, changes neither of these), so a kernel re-run every frame asks the driver once. An answer
// the driver refused is not kept: it is asked again next time, as before.
const CudaBackend::FunctionFacts& CudaBackend::function_facts(LoadedModule& module, CUfunction fn) {
    FunctionFacts& facts = module.facts[fn];
    if (!facts.attributes_known) {
        int max_threads = 0, static_shared = 0;
        const bool known =
            d_.FuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn) == CUDA_SUCCESS &&
            d_.FuncGetAttribute(&static_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn) == CUDA_SUCCESS;
        facts.max_threads = max_threads;
        facts.static_shared = static_shared;
        facts.attributes_known = known;
    }
    return facts;
}

// Asks only for parameters not asked before, and never again past the last one once the driver has said
// "no more" (CUDA_ERROR_INVALID_VALUE, the documented answer). Another failure ends this answer as the
// question did before, but is not kept.
std::vector<size_t> CudaBackend::param_sizes(LoadedModule& module, CUfunction fn, size_t count) {
    FunctionFacts& facts = module.facts[fn];
    while (facts.param_sizes.size() < count && !facts.params_complete) {
        size_t offset = 0, size = 0;
        const CUresult r = d_.FuncGetParamInfo(fn, facts.param_sizes.size(), &offset, &size);
        if (r != CUDA_SUCCESS) {
            facts.params_complete = r == CUDA_ERROR_INVALID_VALUE;
            break;
        }
        facts.param_sizes.push_back(size);
    }
    const size_t known = std::min(count, facts.param_sizes.size());
    return std::vector<size_t>(facts.param_sizes.begin(), facts.param_sizes.begin() + long(known));
}

// The engine validates configurations for the user before asking; this is the backstop that keeps the
// driver from ever seeing a configuration it would reject.
std::optional<EngineError> CudaBackend::check_launch(LoadedModule& module, CUfunction fn, const LaunchRequest& request,
                                                     const std::string& subject) {
    const Dim3& g = request.grid;
    const Dim3& b = request.block;
    if (g.count() == 0 || b.count() == 0) return launch_refused(subject + " has a zero grid or block dimension.");
    if (!fits(b, info_.max_block) || b.count() > uint64_t(info_.max_threads_per_block))
        return launch_refused(subject + ": the block is larger than this GPU allows (at most " +
                       std::to_string(info_.max_threads_per_block) + " threads, " + info_.max_block.str() + ").");
    if (!fits(g, info_.max_grid)) return launch_refused(subject + ": the grid is larger than this GPU allows (" +
                                                 info_.max_grid.str() + ").");
    const FunctionFacts& facts = function_facts(module, fn);
    const int kernel_max_threads = facts.max_threads, static_shared = facts.static_shared;
    if (kernel_max_threads > 0 && b.count() > uint64_t(kernel_max_threads))
        return launch_refused(subject + ": this kernel can run at most " + std::to_string(kernel_max_threads) +
                           " threads per block (its register use or __launch_bounds__ limit it).",
                       "use a smaller block");
    const uint64_t shared = uint64_t(static_shared) + request.dynamic_shared_bytes;
    if (shared > uint64_t(info_.max_shared_per_block_optin))
        return launch_refused(subject + " needs " + std::to_string(shared) + " bytes of shared memory per block; this GPU "
                       "allows " + std::to_string(info_.max_shared_per_block_optin) + ".");
    // Above the default 48 KiB a kernel must opt in to the larger shared memory.
    if (shared > uint64_t(info_.max_shared_per_block)) {
        const CUresult r = d_.FuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                               int(request.dynamic_shared_bytes));
        if (r != CUDA_SUCCESS) return failure(r, subject);
    }
    return std::nullopt;
}

std::optional<EngineError> CudaBackend::marshal_args(LoadedModule& module, CUfunction fn, const LaunchRequest& request,
                                                     std::vector<std::vector<std::byte>>& storage,
                                                     std::vector<void*>& params) {
    const std::string kernel = "kernel `" + request.kernel_name + "`";
    // The driver copies parameters blindly: a missing or mis-sized one would read garbage, so compare
    // with the kernel's real parameter list when the driver can tell it (12.4+).
    // Asking one index past the arguments finds a kernel with more parameters than arguments; the driver
    // answers "no more" with CUDA_ERROR_INVALID_VALUE, which compute-sanitizer reports against us. Under the
    // sanitizer (run --sanitize) that one question is skipped: the session's signature check, which reads
    // the same list from the source, has already refused a missing argument.
    static const bool under_sanitizer = [] {
        const char* v = std::getenv("CUDA_PLAYGROUND_UNDER_SANITIZER");
        return v && *v && std::string(v) != "0";
    }();
    std::vector<size_t> sizes;
    if (d_.FuncGetParamInfo) {
        sizes = param_sizes(module, fn, request.args.size() + (under_sanitizer ? 0 : 1));
        if (sizes.size() != request.args.size())
            return launch_refused(kernel + " takes " + (sizes.size() > request.args.size() ? "more than " : "") +
                               std::to_string(std::min(sizes.size(), request.args.size())) + " parameters but " +
                               std::to_string(request.args.size()) + " arguments were given.",
                           "pass one argument per kernel parameter, in the kernel's order");
    }
    storage.resize(request.args.size());
    params.resize(request.args.size());
    for (size_t i = 0; i < request.args.size(); ++i) {
        const KernelArg& a = request.args[i];
        const std::string label = "argument " + std::to_string(i + 1) + (a.name.empty() ? "" : " (`" + a.name + "`)");
        if (a.buffer) {
            auto it = buffers_.find(a.buffer);
            if (it == buffers_.end())
                return launch_refused(label + " of " + kernel + " refers to " + buffer_label(a.buffer) +
                               ", which does not exist (released, or lost when the context was reset).");
            if (a.offset > it->second.bytes)
                return launch_refused(label + " of " + kernel + " points " + std::to_string(a.offset) + " bytes into " +
                               buffer_label(a.buffer) + ", which has " + std::to_string(it->second.bytes) + " bytes.");
            const CUdeviceptr ptr = it->second.ptr + a.offset;  // a chunk of the buffer (streamed runs)
            storage[i].resize(sizeof(CUdeviceptr));
            std::memcpy(storage[i].data(), &ptr, sizeof(CUdeviceptr));
        } else {
            if (a.scalar.empty()) return launch_refused(label + " of " + kernel + " has no value.");
            storage[i] = a.scalar;
        }
        if (!sizes.empty() && sizes[i] != storage[i].size())
            return launch_refused(label + " of " + kernel + " is " + std::to_string(storage[i].size()) +
                           " bytes but the kernel's parameter is " + std::to_string(sizes[i]) + " bytes.");
        params[i] = storage[i].data();
    }
    return std::nullopt;
}

bool CudaBackend::snapshot_args(const LaunchRequest& request, std::vector<Snapshot>& out) {
    for (const KernelArg& a : request.args) {
        if (!a.buffer) continue;
        const DeviceBuffer& b = buffers_.at(a.buffer);  // marshal_args checked it exists
        bool seen = false;
        for (const Snapshot& s : out) seen = seen || s.buffer == b.ptr;
        if (seen || b.bytes == 0) continue;
        Snapshot s{b.ptr, 0, b.bytes};
        if (d_.MemAlloc(&s.copy, b.bytes) != CUDA_SUCCESS || d_.MemcpyDtoD(s.copy, b.ptr, b.bytes) != CUDA_SUCCESS) {
            if (s.copy) d_.MemFree(s.copy);
            for (const Snapshot& taken : out) d_.MemFree(taken.copy);
            out.clear();
            return false;
        }
        out.push_back(s);
    }
    return true;
}

// Writing a buffer twice the size of L2 evicts whatever the previous launch left there.
CUresult CudaBackend::flush_l2() {
    if (!l2_flush_buffer_) {
        l2_flush_bytes_ = size_t(info_.l2_bytes > 0 ? info_.l2_bytes : 32 << 20) * 2;
        const CUresult r = d_.MemAlloc(&l2_flush_buffer_, l2_flush_bytes_);
        if (r != CUDA_SUCCESS) {
            l2_flush_buffer_ = 0;
            return r;
        }
    }
    static unsigned char value = 0;
    return d_.MemsetD8(l2_flush_buffer_, ++value, l2_flush_bytes_);
}

// Where launch()'s wall time goes (LaunchResult::phases): run_launch marks where the set-up ends and adds up
// each launch's queueing and waiting; launch() calls the rest "after". A few steady_clock reads per launch.
struct LaunchPhaseClock {
    using Clock = std::chrono::steady_clock;
    static double ms(Clock::time_point from, Clock::time_point to) {
        return std::chrono::duration<double, std::milli>(to - from).count();
    }
    const Clock::time_point started = Clock::now();
    std::optional<Clock::time_point> first_launch;  // the first launch's queueing began: the set-up ended
    double launch_calls_ms = 0, wait_ms = 0, kernel_ms = 0;

    // At the end of launch(): a request refused before any launch was all set-up.
    LaunchPhases finish() const {
        const Clock::time_point now = Clock::now();
        LaunchPhases p;
        p.setup_ms = ms(started, first_launch.value_or(now));
        p.launch_calls_ms = launch_calls_ms;
        p.wait_ms = wait_ms;
        p.after_ms = std::max(0.0, ms(started, now) - p.setup_ms - launch_calls_ms - wait_ms);
        p.kernel_ms = kernel_ms;
        return p;
    }
};

LaunchResult CudaBackend::launch(const LaunchRequest& request) {
    LaunchPhaseClock clock;
    LaunchResult out = run_launch(request, clock);
    out.phases = clock.finish();
    return out;
}

LaunchResult CudaBackend::run_launch(const LaunchRequest& request, LaunchPhaseClock& clock) {
    using Clock = LaunchPhaseClock::Clock;
    LaunchResult out;
    if ((out.error = bind())) return out;
    const std::string subject = "kernel `" + request.kernel_name + "` (grid " + request.grid.str() + ", block " +
                                request.block.str() + ")";
    CUfunction fn = kernel_function(request.module, request.kernel_name, subject, out.error);
    if (!fn) return out;
    LoadedModule& module = modules_.at(request.module);  // found by kernel_function above
    std::vector<std::vector<std::byte>> storage;
    std::vector<void*> params;
    if ((out.error = check_launch(module, fn, request, subject))) return out;
    if ((out.error = marshal_args(module, fn, request, storage, params))) return out;

    int warmup = std::clamp(request.timing.warmup, 0, kMaxLaunches);
    int repeats = std::clamp(request.timing.repeats, 1, kMaxLaunches);
    // A recording launch (issue 23) runs once, or again with fewer blocks recorded when the first pass made
    // more accesses than the log holds: each pass from the same inputs, so the outputs are one launch's.
    if (request.record_memory) {
        warmup = 0;
        repeats = 1;
    }
    std::vector<Snapshot> snapshots;
    bool can_run_again = true;
    if ((warmup + repeats > 1 || (request.record_memory && request.grid.count() > 1)) &&
        !snapshot_args(request, snapshots)) {
        // No memory for the copies: launch once rather than change the results.
        warmup = 0;
        repeats = 1;
        can_run_again = false;
    }
    std::optional<StdoutCapture> capture;
    if (module.can_print) capture.emplace(module.can_assert);

    // A traced launch: point the instrumented kernel's record pointer at a zeroed buffer of 3 words a block.
    CUdeviceptr records = 0;
    const uint64_t blocks = request.grid.count();
    const uint64_t record_bytes = blocks * kTraceWordsPerBlock * sizeof(uint64_t);
    if (request.trace) {
        if (!module.trace_records) {
            out.error = engine_error(ErrorKind::Internal, "NOT_INSTRUMENTED",
                                     "a traced launch needs the kernel compiled for tracing",
                                     "compile with CompileRequest::instrument_trace");
            return out;
        }
        CUresult r = d_.MemAlloc(&records, record_bytes);
        if (r == CUDA_SUCCESS) r = d_.MemsetD8(records, 0, record_bytes);
        if (r == CUDA_SUCCESS) r = d_.MemcpyHtoD(module.trace_records, &records, sizeof records);
        if (r != CUDA_SUCCESS) {
            if (records) d_.MemFree(records);
            out.error = failure(r, "the trace buffer for " + subject);
            return out;
        }
    }

    MemoryPass memory_pass;
    if (request.record_memory) {
        if ((out.error = begin_memory_recording(module, request, memory_pass))) {
            for (const Snapshot& snap : snapshots) d_.MemFree(snap.copy);
            if (records) d_.MemFree(records);
            return out;
        }
    }

    std::vector<double> samples;
    std::vector<GuardRead> guard_reads;
    size_t first_launch_output = std::string::npos;
    CUresult failed = CUDA_SUCCESS;
    bool launch_call_failed = false;  // cuLaunchKernel itself said no: the configuration, not the kernel
    for (int i = 0; i < warmup + repeats && failed == CUDA_SUCCESS; ++i) {
        const bool timed = i >= warmup;
        const Clock::time_point queueing = Clock::now();
        if (i == 0) clock.first_launch = queueing;
        for (const Snapshot& snap : snapshots)
            if (i > 0 && (failed = d_.MemcpyDtoD(snap.buffer, snap.copy, snap.bytes)) != CUDA_SUCCESS) break;
        if (failed != CUDA_SUCCESS) break;
        if (timed && request.timing.flush_l2 && (failed = flush_l2()) != CUDA_SUCCESS) break;
        d_.EventRecord(start_, nullptr);
        failed = d_.LaunchKernel(fn, request.grid.x, request.grid.y, request.grid.z, request.block.x, request.block.y,
                                 request.block.z, request.dynamic_shared_bytes, nullptr, params.data(), nullptr);
        if (failed != CUDA_SUCCESS) {
            launch_call_failed = true;
            break;
        }
        d_.EventRecord(stop_, nullptr);
        // The last launch's guard zones are copied behind it, so that one synchronise waits for both.
        if (i + 1 == warmup + repeats) queue_guard_reads(request, guard_reads);
        // Synchronising after each launch surfaces errors at the launch that caused them and flushes its printf.
        const Clock::time_point waiting = Clock::now();
        clock.launch_calls_ms += LaunchPhaseClock::ms(queueing, waiting);
        failed = d_.CtxSynchronize();
        clock.wait_ms += LaunchPhaseClock::ms(waiting, Clock::now());
        if (failed != CUDA_SUCCESS) break;
        if (i == 0 && capture) first_launch_output = capture->size();
        // Every launch's GPU time counts towards the phases (the wait holds them all); the timed ones are the samples.
        float ms = 0;
        if (d_.EventElapsedTime(&ms, start_, stop_) == CUDA_SUCCESS) {
            clock.kernel_ms += ms;
            if (timed) samples.push_back(ms);
        }
        if (memory_pass.log && i + 1 == warmup + repeats) {
            bool again = false;
            if ((failed = memory_pass_needed(module, memory_pass, can_run_again, again)) != CUDA_SUCCESS) break;
            if (again) ++repeats;
        }
    }
    if (memory_pass.log) {
        if (failed == CUDA_SUCCESS)
            failed = end_memory_recording(module, memory_pass, samples.empty() ? 0.0 : samples.back(), out);
        else if (!context_is_broken())
            abandon_memory_recording(module, memory_pass);
    }
    if (!context_is_broken())
        for (const Snapshot& snap : snapshots) d_.MemFree(snap.copy);
    if (capture) {
        out.printf_output = capture->finish(kMaxPrintfBytes);
        // Every warmup and repeat prints the same again: show the first launch's output once.
        if (first_launch_output != std::string::npos && out.printf_output.size() > first_launch_output) {
            out.printf_output.resize(first_launch_output);
            out.printf_output += "[output of the " + std::to_string(warmup + repeats - 1) +
                                 " further launches (warmup and repeats) not shown]\n";
        }
    }
    if (records && failed == CUDA_SUCCESS) {
        std::vector<uint64_t> words(blocks * kTraceWordsPerBlock);
        const CUdeviceptr none = 0;
        failed = d_.MemcpyDtoH(words.data(), records, record_bytes);
        if (failed == CUDA_SUCCESS) failed = d_.MemcpyHtoD(module.trace_records, &none, sizeof none);
        out.trace_unit = "sm";
        out.trace.reserve(blocks);
        for (uint64_t b = 0; b < blocks && failed == CUDA_SUCCESS; ++b) {
            const uint64_t* w = words.data() + b * kTraceWordsPerBlock;
            out.trace.push_back({b, uint32_t(w[0]), w[1], w[2]});
        }
    }
    if (records && !context_is_broken()) d_.MemFree(records);
    if (failed != CUDA_SUCCESS) {
        out.error = failure(failed, subject);
        // CUDA_ERROR_INVALID_VALUE from cuLaunchKernel is a configuration the driver refused.
        if (launch_call_failed && failed == CUDA_ERROR_INVALID_VALUE) out.error->kind = ErrorKind::LaunchRefused;
        return out;
    }
    if ((out.error = check_guards(request, guard_reads))) return out;
    out.ok = true;
    out.timing = TimingStats::from_samples(std::move(samples), false);
    return out;
}

// Asks the driver, as the launch panel's block size suggestion wants: dynamic shared memory is a constant
// per block (no callback), and the occupancy at the answer comes from the active-blocks query.
OccupancyResult CudaBackend::occupancy(const OccupancyRequest& request) {
    OccupancyResult out;
    out.method = "cuOccupancyMaxPotentialBlockSize";
    if ((out.error = bind())) return out;
    const std::string subject = "kernel `" + request.kernel_name + "`";
    if (!d_.OccupancyMaxPotentialBlockSize || !d_.OccupancyMaxActiveBlocksPerMultiprocessor) {
        out.error = engine_error(ErrorKind::Unsupported, "not supported",
                                 "this NVIDIA driver has no occupancy API (cuOccupancyMaxPotentialBlockSize)",
                                 "the block size can still be estimated from the kernel's resource usage");
        return out;
    }
    CUfunction fn = kernel_function(request.module, request.kernel_name, subject, out.error);
    if (!fn) return out;
    // Above the default 48 KiB the kernel must opt in, or the driver counts it as not fitting at all.
    if (request.dynamic_shared_bytes > uint32_t(info_.max_shared_per_block) &&
        request.dynamic_shared_bytes <= uint32_t(info_.max_shared_per_block_optin)) {
        if (CUresult r = d_.FuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                             int(request.dynamic_shared_bytes));
            r != CUDA_SUCCESS) {
            out.error = failure(r, subject);
            return out;
        }
    }
    CUresult r = d_.OccupancyMaxPotentialBlockSize(&out.min_grid_size, &out.block_size, fn, nullptr,
                                                   request.dynamic_shared_bytes, int(request.block_size_limit));
    if (r == CUDA_SUCCESS)
        r = d_.OccupancyMaxActiveBlocksPerMultiprocessor(&out.active_blocks_per_sm, fn, out.block_size,
                                                         request.dynamic_shared_bytes);
    for (int threads : request.block_sizes) {
        if (r != CUDA_SUCCESS) break;
        int active = 0;  // a size the kernel cannot launch with counts as no block fitting
        if (d_.OccupancyMaxActiveBlocksPerMultiprocessor(&active, fn, threads, request.dynamic_shared_bytes) != CUDA_SUCCESS)
            active = 0;
        out.active_blocks.push_back(active);
    }
    if (r != CUDA_SUCCESS) {
        out.error = failure(r, "the occupancy query for " + subject);
        return out;
    }
    const int warp = std::max(info_.warp_size, 1);
    const int max_warps = std::max(info_.max_threads_per_sm / warp, 1);
    const int warps_per_block = (out.block_size + warp - 1) / warp;
    out.occupancy = double(out.active_blocks_per_sm * warps_per_block) / max_warps;
    return out;
}

}  // namespace cp
