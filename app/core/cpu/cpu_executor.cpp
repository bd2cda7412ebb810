// The CPU executor: kernel libraries (dlopen), buffers mapped between guards, launches on the worker pool
// with the launch checks a GPU makes, repeated runs on the same inputs, crash descriptions, host calls.
#include "core/cpu/cpu_executor.h"

#include "core/cpu/access_recorder.h"
#include "core/cpu/fault_report.h"
#include "core/cpu/fault_trap.h"
#include "core/cpu/guarded_memory.h"
#include "core/cpu/kernel_module.h"
#include "core/cpu/program_host.h"
#include "core/cpu/worker_pool.h"
#include "core/clock.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <cstdio>

namespace cp {
namespace {

ProgramDevice* g_program_device = nullptr;  // current_program_device()

constexpr int kMaxLaunches = 100000;  // warmup + repeats of one request, as on the CUDA backend

class CpuExecutor final : public KernelRunner {
public:
    CpuExecutor(const ExecutorOptions& options, ThreadStateObserver observer)
        : options_(options), pool_(std::max(1, options.workers), observer) {}

    int workers() const override { return pool_.size(); }
    Result<ModuleFacts> load_module(ModuleId id, const std::string& library, const std::string& kernel,
                                    const std::string& subject) override;
    void unload_module(ModuleId id) override { modules_.erase(id); }
    std::optional<EngineError> map_buffer(BufferId id, const std::string& name, int fd, uint64_t bytes,
                                          size_t start_align) override;
    void unmap_buffer(BufferId id) override { buffers_.erase(id); }
    ExecutorLaunch launch(const LaunchRequest& request) override;
    HostCallResult call_host(const HostCallRequest& request) override;
    ProgramRunResult run_program(const ProgramRunRequest& request, const ProgramLaunchSink& on_launch) override;

private:
    struct Buffer {
        std::string name;
        GuardedBuffer memory;
    };
    std::optional<EngineError> check_config(const LaunchRequest& r, const KernelModule& m) const;
    // Like cuLaunchKernel's kernelParams: a pointer to each argument's value (in `storage`).
    std::optional<EngineError> marshal(const std::vector<KernelArg>& args, const std::vector<cp_abi::ParamInfo>* params,
                                       const std::string& callee, std::vector<std::vector<std::byte>>& storage,
                                       std::vector<void*>& pointers, FaultReportContext* report);

    ExecutorOptions options_;
    WorkerPool pool_;
    std::map<ModuleId, std::unique_ptr<KernelModule>> modules_;
    std::map<BufferId, Buffer> buffers_;
};

Result<ModuleFacts> CpuExecutor::load_module(ModuleId id, const std::string& library, const std::string& kernel,
                                             const std::string& subject) {
    auto loaded = KernelModule::load(library, {});
    if (!loaded) return make_error(loaded.error().kind, subject + ": " + loaded.error().message, loaded.error().hint);
    if (!kernel.empty()) {
        auto entry = (*loaded)->kernel(kernel);
        if (!entry) return entry.error();
    }
    const KernelModule& m = **loaded;
    ModuleFacts facts;
    facts.tls_bytes = m.tls_bytes();
    facts.load_base = m.load_base();
    facts.code_begin = m.code_begin();
    facts.code_end = m.code_end();
    modules_[id] = std::move(*loaded);
    return facts;
}

std::optional<EngineError> CpuExecutor::map_buffer(BufferId id, const std::string& name, int fd, uint64_t bytes,
                                                   size_t start_align) {
    auto memory = GuardedBuffer::map_shared(fd, bytes, start_align);
    if (!memory)
        return engine_error(ErrorKind::OutOfMemory, "OUT_OF_MEMORY", "buffer `" + name + "`: " + memory.error().message,
                            memory.error().hint);
    buffers_[id] = Buffer{name, std::move(*memory)};
    return std::nullopt;
}

std::optional<EngineError> CpuExecutor::check_config(const LaunchRequest& r, const KernelModule& m) const {
    return check_launch_limits(r.grid, r.block, r.dynamic_shared_bytes, m.tls_bytes());
}

std::optional<EngineError> CpuExecutor::marshal(const std::vector<KernelArg>& args,
                                                const std::vector<cp_abi::ParamInfo>* params, const std::string& callee,
                                                std::vector<std::vector<std::byte>>& storage,
                                                std::vector<void*>& pointers, FaultReportContext* report) {
    if (params && args.size() != params->size())
        return engine_error(ErrorKind::LaunchRefused, "INVALID_ARGUMENTS",
                            callee + " takes " + std::to_string(params->size()) + " parameters, the launch passed " +
                                std::to_string(args.size()));
    storage.assign(args.size(), {});
    pointers.assign(args.size(), nullptr);
    for (size_t i = 0; i < args.size(); ++i) {
        const KernelArg& a = args[i];
        const cp_abi::ParamInfo* p = params ? &(*params)[i] : nullptr;
        const std::string which = "parameter " + std::to_string(i + 1) + (a.name.empty() ? "" : " (`" + a.name + "`)");
        // 16-byte aligned storage for any parameter type (vector types have up to 16-byte alignment).
        storage[i].resize(std::max<size_t>(p ? p->size : a.scalar.size(), sizeof(void*)) + 16);
        auto* slot =
            reinterpret_cast<std::byte*>((reinterpret_cast<uintptr_t>(storage[i].data()) + 15) & ~uintptr_t(15));
        pointers[i] = slot;
        if (a.buffer) {
            auto b = buffers_.find(a.buffer);
            if (b == buffers_.end())
                return engine_error(ErrorKind::Internal, "INVALID_BUFFER",
                                    which + " names a buffer that does not exist");
            if (p && !p->is_pointer)
                return engine_error(ErrorKind::LaunchRefused, "INVALID_ARGUMENTS",
                                    which + " is a value of " + std::to_string(p->size) +
                                        " bytes in the kernel, but a buffer was passed");
            if (a.offset > b->second.memory.size())
                return engine_error(ErrorKind::LaunchRefused, "INVALID_VALUE",
                                    which + " points " + std::to_string(a.offset) + " bytes into buffer `" +
                                        b->second.name + "` of " + std::to_string(b->second.memory.size()) + " bytes");
            void* data = b->second.memory.data() + a.offset;  // a chunk of the buffer (streamed runs)
            std::memcpy(slot, &data, sizeof data);
            if (report) report->buffers.push_back({b->second.name, &b->second.memory, p ? p->pointee_size : 0});
        } else if (p && a.scalar.size() != p->size) {
            return engine_error(ErrorKind::LaunchRefused, "INVALID_ARGUMENTS",
                                which + " takes " + std::to_string(p->size) + " bytes, the launch passed " +
                                    std::to_string(a.scalar.size()));
        } else if (!a.scalar.empty()) {
            std::memcpy(slot, a.scalar.data(), a.scalar.size());
        }
    }
    if (report) {
        // Buffers not passed to this kernel can still be reached by a wild index: name them too.
        for (auto& [id, b] : buffers_) {
            const bool listed = std::any_of(report->buffers.begin(), report->buffers.end(),
                                            [&](const BufferForReport& r) { return r.memory == &b.memory; });
            if (!listed) report->buffers.push_back({b.name, &b.memory, 0});
        }
    }
    return std::nullopt;
}

ExecutorLaunch CpuExecutor::launch(const LaunchRequest& request) {
    ExecutorLaunch run;
    LaunchResult& out = run.result;
    auto mod = modules_.find(request.module);
    if (mod == modules_.end()) {
        out.error = engine_error(ErrorKind::Internal, "INVALID_MODULE",
                                 "launch of a module that is not loaded (id " + std::to_string(request.module) + ")");
        return run;
    }
    KernelModule& module = *mod->second;
    auto entry = module.kernel(request.kernel_name);
    if (!entry) {
        out.error = to_engine_error(entry.error(), "KERNEL_NOT_FOUND", ErrorKind::Compile);
        return run;
    }
    if (auto bad = check_config(request, module)) {
        out.error = std::move(bad);
        return run;
    }
    std::vector<std::vector<std::byte>> storage;
    std::vector<void*> pointers;
    FaultReportContext report{&module, request.module, {}};
    if (auto bad = marshal(request.args, &(*entry)->params, "kernel `" + request.kernel_name + "`", storage, pointers,
                           &report)) {
        out.error = std::move(bad);
        return run;
    }

    GridLaunch job;
    job.module = &module;
    job.entry = *entry;
    job.args = pointers.data();
    job.grid = request.grid;
    job.block = request.block;
    job.dynamic_shared_bytes = request.dynamic_shared_bytes;
    job.order = options_.order;
    job.seed = options_.seed;
    if (request.thread_order) {  // chosen for this launch (run --thread-order, the window's Launch panel)
        job.order = ThreadOrder(int(request.thread_order->kind));
        job.seed = request.thread_order->seed;
    }
    std::vector<BlockTrace> trace;
    if (request.trace) trace.resize(request.grid.count());
    std::optional<DebugRecording> debugged;
    if (request.debug_block) {  // the debugger's recording (issue 39): that block alone, once
        if (*request.debug_block >= request.grid.count()) {
            out.error = engine_error(ErrorKind::UserInput, "INVALID_BLOCK",
                                     "block " + std::to_string(*request.debug_block) + " is not in the grid of " +
                                         std::to_string(request.grid.count()) + " blocks",
                                     "pick a block inside the grid");
            return run;
        }
        const uint64_t warps = (request.block.count() + 31) / 32;
        if (request.debug_warp >= 0 && uint64_t(request.debug_warp) >= warps) {
            out.error = engine_error(ErrorKind::UserInput, "INVALID_WARP",
                                     "warp " + std::to_string(request.debug_warp) + " is not in the block of " +
                                         std::to_string(request.block.count()) + " threads (" + std::to_string(warps) +
                                         (warps == 1 ? " warp)" : " warps)"),
                                     "pick a warp from 0 to " + std::to_string(warps - 1));
            return run;
        }
        job.debug_block = request.debug_block;
        job.debug_warp = request.debug_warp;
        job.debug_out = &debugged;
        for (auto& [id, b] : buffers_)
            if (b.memory.size()) job.debug_globals.emplace_back(b.memory.data(), b.memory.size());
    }

    int warmup = std::clamp(request.timing.warmup, 0, kMaxLaunches);
    int repeats = std::clamp(request.timing.repeats, 1, kMaxLaunches);
    // A recording launch (issue 23) runs once: every access of it is kept (access_recorder.h).
    bool recording = false;
    if (request.debug_block) {
        warmup = 0;
        repeats = 1;
    }
    if (request.record_memory) {
        warmup = 0;
        repeats = 1;
        if (module.records_accesses()) {
            RecordingLaunch rec;
            rec.grid = request.grid;
            rec.dynamic_shared_bytes = request.dynamic_shared_bytes;
            rec.load_base = module.load_base();
            rec.warps = request.memory_warps;
            for (auto& [id, b] : buffers_)
                if (b.memory.size()) rec.global.emplace_back(b.memory.data(), b.memory.size());
            recording = begin_access_recording(rec);
            job.blocks_end = access_recording_blocks_end();
            if (!recording) {
                out.error =
                    engine_error(ErrorKind::OutOfMemory, "OUT_OF_MEMORY", "no memory to record the launch's accesses",
                                 "run without --memory, or with a smaller grid");
                return run;
            }
        }
    }
    // As on the CUDA backend, every run of one request sees the same inputs: a kernel that updates its
    // buffers in place (x[i] += 1, atomics) leaves them as after exactly one run, and repeats time the same work.
    std::vector<std::pair<GuardedBuffer*, std::vector<std::byte>>> snapshots;
    if (warmup + repeats > 1) {
        try {
            for (const KernelArg& a : request.args) {
                if (!a.buffer) continue;
                GuardedBuffer* memory = &buffers_.at(a.buffer).memory;
                const bool seen =
                    std::any_of(snapshots.begin(), snapshots.end(), [&](const auto& s) { return s.first == memory; });
                if (seen || !memory->size()) continue;
                snapshots.emplace_back(memory, std::vector<std::byte>(memory->data(), memory->data() + memory->size()));
            }
        } catch (const std::bad_alloc&) {
            snapshots.clear();  // no memory for the copies: run once rather than change the results
            warmup = 0;
            repeats = 1;
        }
    }
    std::vector<double> samples;
    for (int i = 0; i < warmup + repeats; ++i) {
        if (i > 0)
            for (const auto& [memory, copy] : snapshots) std::memcpy(memory->data(), copy.data(), copy.size());
        job.capture_printf = i == 0;  // every run prints the same: the first one's output is shown
        job.trace = request.trace && i == warmup + repeats - 1 ? &trace : nullptr;
        const auto start = std::chrono::steady_clock::now();
        GridOutcome outcome = pool_.run(job);
        const double ms = ms_since(start);
        if (recording) {
            out.memory = end_access_recording();
            out.memory->ms = ms;
            recording = false;
        }
        if (debugged) {  // kept when the block failed too: the steps up to where it stopped
            debugged->ms = ms;
            std::vector<DebugRegion> buffers;  // pointers are shown as the buffers' elements, before shared memory's
            for (const BufferForReport& b : report.buffers)
                buffers.push_back({b.name, uint64_t(reinterpret_cast<uintptr_t>(b.memory->data())),
                                   uint64_t(b.memory->size()), b.element_size});
            debugged->regions.insert(debugged->regions.begin(), buffers.begin(), buffers.end());
            out.debug = std::move(debugged);
            debugged.reset();
        }
        if (i == 0) {
            out.printf_output = std::move(outcome.printf_output);
            if (!out.printf_output.empty() && warmup + repeats > 1)
                out.printf_output += "[output of the " + std::to_string(warmup + repeats - 1) +
                                     " further launches (warmup and repeats) not shown]\n";
        }
        // Writes just before a buffer's start land on its first page without faulting (its end touches the
        // guard, its start cannot too), as do writes just past the end of a buffer that starts aligned for
        // vector accesses (CpuBackend::realign). The per-access check (access_bounds.h) stops those of
        // instrumented code at once; what is left (the C library's memcpy/memset, kernels compiled without the
        // check) is found here. Every buffer is looked at (and its pattern put back), even after
        // a crash, so that none is left to be reported by the next launch; the first one written is the error.
        std::optional<EngineError> written_outside;
        for (auto& [id, b] : buffers_) {
            const std::optional<GuardedBuffer::Location> loc = b.memory.written_outside();
            if (!loc || written_outside) continue;
            uint32_t element_size = 0;
            for (const BufferForReport& r : report.buffers)
                if (r.memory == &b.memory && r.element_size) element_size = r.element_size;
            written_outside = engine_error(
                ErrorKind::OutOfBounds, "OUT_OF_BOUNDS",
                written_outside_text("buffer `" + b.name + "`", b.memory.size(), *loc, element_size) + kFoundAfterLaunch,
                loc->where == GuardedBuffer::Where::PastEnd
                    ? "look for a missing bounds check (if (i < n)) or an index one too large"
                    : "look for a negative index, e.g. a[i - 1] when i is 0");
        }
        if (!outcome.ok) {
            out.error = describe_crash(outcome.failure, report, &run.site);
            return run;
        }
        if (written_outside) {
            out.error = written_outside;
            return run;
        }
        if (i >= warmup) samples.push_back(ms);
    }
    out.timing = TimingStats::from_samples(std::move(samples), true);
    if (request.trace) {
        out.trace = std::move(trace);
        out.trace_unit = "worker";
    }
    out.ok = true;
    return run;
}

// Crashes in a host call are caught like a kernel's, on this thread.
HostCallResult CpuExecutor::call_host(const HostCallRequest& request) {
    HostCallResult out;
    auto mod = modules_.find(request.module);
    if (mod == modules_.end()) {
        out.error = engine_error(ErrorKind::Internal, "INVALID_MODULE",
                                 "call into a module that is not loaded (id " + std::to_string(request.module) + ")");
        return out;
    }
    KernelModule& module = *mod->second;
    auto fn = reinterpret_cast<void (*)(void**)>(module.symbol(request.symbol));
    if (!fn) {
        out.error = engine_error(ErrorKind::Internal, "SYMBOL_NOT_FOUND",
                                 "`" + request.symbol + "` is not in the compiled code",
                                 "declare it extern \"C\" with default visibility");
        return out;
    }
    std::vector<std::vector<std::byte>> storage;
    std::vector<void*> pointers;
    if (auto bad = marshal(request.args, nullptr, "`" + request.symbol + "`", storage, pointers, nullptr)) {
        out.error = std::move(bad);
        return out;
    }
    const auto start = std::chrono::steady_clock::now();
    const std::optional<FaultRecord> fault = call_with_fault_trap(fn, pointers.data());
    out.ms = ms_since(start);
    if (fault) {
        out.site = code_site_of(module, request.module, fault->instruction, fault->stack_pointer);
        const std::string what = fault->signal == SIGFPE   ? "divided an integer by zero"
                                 : fault->signal == SIGILL ? "executed an illegal instruction"
                                 : fault->access == 2
                                     ? "wrote to an address it may not (" + std::to_string(fault->address) + ")"
                                     : "read an address it may not (" + std::to_string(fault->address) + ")";
        out.error = engine_error(ErrorKind::Fault, "HOST_CODE_CRASHED", "`" + request.symbol + "` " + what,
                                 "check the indices against the buffers' sizes");
        return out;
    }
    out.ok = true;
    return out;
}

std::string hex_text(uintptr_t value) {
    char text[32];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
    return text;
}

struct ProgramCall {
    int (*main)(int, char**, const cp_abi::ProgramHost*) = nullptr;
    int argc = 0;
    char** argv = nullptr;
    const cp_abi::ProgramHost* host = nullptr;
    int status = 0;
};

void call_program(void** args) {
    auto* call = static_cast<ProgramCall*>(args[0]);
    call->status = call->main(call->argc, call->argv, call->host);
}

// The program's main() on this thread, with a trap armed: a crash in its host code is caught like a kernel's.
ProgramRunResult CpuExecutor::run_program(const ProgramRunRequest& request, const ProgramLaunchSink& on_launch) {
    ProgramRunResult out;
    auto mod = modules_.find(request.module);
    if (mod == modules_.end()) {
        out.error = engine_error(ErrorKind::Internal, "INVALID_MODULE",
                                 "run of a program that is not loaded (id " + std::to_string(request.module) + ")");
        return out;
    }
    KernelModule& module = *mod->second;
    ProgramCall call;
    call.main = reinterpret_cast<int (*)(int, char**, const cp_abi::ProgramHost*)>(module.symbol("cp_program_main"));
    if (!call.main) {
        out.error = engine_error(ErrorKind::Internal, "SYMBOL_NOT_FOUND", "the compiled program has no entry point");
        return out;
    }
    std::vector<std::string> words = request.argv.empty() ? std::vector<std::string>{"program"} : request.argv;
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    std::optional<ProgramHostState> state;
    std::unique_ptr<ProgramDevice> device;
    if (request.device_image) {
        if (!options_.device) {
            out.error = engine_error(ErrorKind::Unsupported, "NOT_SUPPORTED",
                                     "this worker has no GPU to run the program's kernels on");
            return out;
        }
        ProgramDeviceRun run;
        run.image = request.device_image.get();
        run.library_base = module.load_base();
        run.memory_limit = request.memory_limit;
        run.capture_fd = request.capture_fd;
        run.capture_limit = request.capture_limit;
        run.on_launch = &on_launch;
        run.changes = &request.changes;
        auto started = options_.device->start(run);
        if (!started) {
            out.error = to_engine_error(started.error(), "DEVICE_FAILED", ErrorKind::Unsupported);
            return out;
        }
        device = std::move(*started);
        call.host = device->table();
    } else {
        state.emplace(pool_, module, request, on_launch, options_.order, options_.seed);
        call.host = state->table();
    }
    g_program_device = device.get();
    struct Forget {
        ~Forget() { g_program_device = nullptr; }
    } forget;
    call.argc = int(words.size());
    call.argv = argv.data();
    void* args[1] = {&call};
    const auto start = std::chrono::steady_clock::now();
    const std::optional<FaultRecord> fault = call_with_fault_trap(&call_program, args);
    if (device && !fault) device->finish();
    out.ms = ms_since(start);
    std::fflush(stdout);
    std::fflush(stderr);
    if (fault) {
        out.site = code_site_of(module, request.module, fault->instruction, fault->stack_pointer);
        const std::string what =
            fault->signal == SIGFPE   ? "divided an integer by zero"
            : fault->signal == SIGILL ? "executed an illegal instruction"
            : fault->address < 4096   ? std::string(fault->access == 2 ? "wrote through" : "read through") +
                                          " a null pointer"
            : fault->access == 2 ? "wrote to an address it may not (" + hex_text(fault->address) + ")"
                                 : "read an address it may not (" + hex_text(fault->address) + ")";
        const bool null_pointer = fault->signal == SIGSEGV && fault->address < 4096;
        // Device memory touched by host code: a GPU's is not the host's either (its pages are closed between launches).
        const std::string* buffer = nullptr;
        if (fault->signal == SIGSEGV)
            buffer = state ? state->device_allocation_at(uintptr_t(fault->address))
                           : device ? device->device_allocation_at(uintptr_t(fault->address)) : nullptr;
        if (buffer) {
            out.error = engine_error(
                ErrorKind::Fault, "HOST_READ_DEVICE_MEMORY",
                "the program's host code " + std::string(fault->access == 2 ? "wrote to" : "read") +
                    " device memory directly (`" + *buffer + "`, from cudaMalloc): on a GPU that address is not the "
                    "host's, and the program crashes there",
                "copy it to a host array with cudaMemcpy(..., cudaMemcpyDeviceToHost) first, or allocate it with "
                "cudaMallocManaged so that the host and the kernels share it");
            out.error->site_at = out.error->message.size();
            return out;
        }
        out.error = engine_error(ErrorKind::Fault, "HOST_CODE_CRASHED", "the program's host code " + what,
                                 null_pointer ? "a pointer never set, or an argv[i] the program was not given (its "
                                                "arguments go after `--`: cuda-playground run prog.cu -- 1000)"
                                              : "a pointer freed, or past its array; the line says where");
        out.error->site_at = out.error->message.size();
        return out;
    }
    out.returned = true;
    out.exit_status = call.status;
    return out;
}

}  // namespace

ProgramDevice* current_program_device() { return g_program_device; }

ProgramRunResult KernelRunner::run_program(const ProgramRunRequest&, const ProgramLaunchSink&) {
    ProgramRunResult out;
    out.error = engine_error(ErrorKind::Unsupported, "NOT_SUPPORTED", "this kernel runner cannot run whole programs");
    return out;
}

std::optional<EngineError> check_launch_limits(const Dim3& grid, const Dim3& block, uint64_t dynamic_shared_bytes,
                                               uint64_t tls) {
    const DeviceInfo limits;  // CUDA's usual limits, as info() reports them
    const std::string hint = "the CPU backend enforces the same limits as a GPU";
    if (!block.count() || !grid.count())
        return engine_error(ErrorKind::LaunchRefused, "INVALID_CONFIGURATION",
                            "grid " + grid.str() + " and block " + block.str() + " must not be 0 in any dimension",
                            hint);
    if (block.count() > uint64_t(limits.max_threads_per_block) || block.x > limits.max_block.x ||
        block.y > limits.max_block.y || block.z > limits.max_block.z)
        return engine_error(ErrorKind::LaunchRefused, "INVALID_CONFIGURATION",
                            "block " + block.str() + " exceeds the limits (1024 threads, 1024x1024x64)", hint);
    if (grid.x > limits.max_grid.x || grid.y > limits.max_grid.y || grid.z > limits.max_grid.z)
        return engine_error(ErrorKind::LaunchRefused, "INVALID_CONFIGURATION",
                            "grid " + grid.str() + " exceeds the limits (2147483647x65535x65535)", hint);
    if (dynamic_shared_bytes > uint64_t(uint32_t(limits.max_shared_per_block)) ||
        dynamic_shared_bytes + tls > uint64_t(limits.max_shared_per_block) + sizeof(cp_abi::ThreadState) + 64)
        return engine_error(ErrorKind::LaunchRefused, "INVALID_CONFIGURATION",
                            "shared memory per block (" + std::to_string(dynamic_shared_bytes) +
                                " bytes dynamic) exceeds 48 KiB",
                            hint);
    return std::nullopt;
}

std::unique_ptr<KernelRunner> make_cpu_executor(const ExecutorOptions& options, ThreadStateObserver observer) {
    return std::make_unique<CpuExecutor>(options, observer);
}

void place_code_site(EngineError& error, const std::string& location, int line) {
    const size_t at = std::min(error.site_at.value_or(error.message.size()), error.message.size());
    error.message.insert(at, location);
    error.site_at.reset();
    if (line > 0) error.line = line;
}

}  // namespace cp
