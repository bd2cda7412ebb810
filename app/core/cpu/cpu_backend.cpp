// The CPU backend's requests: device info, compile (host compiler + cache), buffers with guard pages,
// launches on the worker pool (timed on the CPU clock), read-back and release.
#include "core/cpu/cpu_backend.h"

#include "core/cpu/fault_report.h"
#include "core/cpu/guarded_memory.h"
#include "core/cpu/host_compiler.h"
#include "core/cpu/kernel_module.h"
#include "core/cpu/worker_pool.h"
#include "core/engine/occupancy.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <thread>
#include <unistd.h>

namespace cp {
namespace {

std::string cpu_model_name() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("model name", 0) == 0 || line.rfind("Model", 0) == 0) {
            const size_t colon = line.find(':');
            if (colon != std::string::npos) {
                std::string name = line.substr(colon + 1);
                name.erase(0, name.find_first_not_of(" \t"));
                if (!name.empty()) return name;
            }
        }
    }
    return "unknown CPU";
}

double elapsed_ms(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

constexpr int kMaxLaunches = 100000;  // warmup + repeats of one request, as on the CUDA backend

EngineError engine_error(std::string name, std::string message, std::string hint = {}) {
    return EngineError{std::move(name), std::move(message), std::move(hint), false};
}

// Static __shared__ arrays are thread-local variables: the TLS size bounds them from above.
int static_shared_bound(const KernelModule& module) {
    const uint64_t state = sizeof(cp_abi::ThreadState);
    const uint64_t tls = module.tls_bytes();
    return int(tls > state ? tls - state : 0);
}

class CpuBackend final : public Backend {
public:
    CpuBackend(const CpuBackendOptions& options, HostCompiler compiler, ShimLocation shim, std::filesystem::path cache)
        : options_(options), compiler_(std::move(compiler)), shim_(std::move(shim)), cache_dir_(std::move(cache)),
          pool_(options.workers > 0 ? options.workers : int(std::max(1u, std::thread::hardware_concurrency()))) {}

    InfoResult info() override;
    CompileResult compile(const CompileRequest& request) override;
    AllocateResult allocate(const AllocateRequest& request) override;
    UploadResult upload(const UploadRequest& request) override;
    LaunchResult launch(const LaunchRequest& request) override;
    ReadBackResult read_back(const ReadBackRequest& request) override;
    ReleaseResult release(const ReleaseRequest& request) override;
    OccupancyResult occupancy(const OccupancyRequest& request) override;

private:
    struct Module {
        std::unique_ptr<KernelModule> library;
        std::string source_path;
    };
    struct Buffer {
        std::string name;
        GuardedBuffer memory;
    };
    std::optional<EngineError> check_config(const LaunchRequest& r, const Module& m) const;

    CpuBackendOptions options_;
    HostCompiler compiler_;
    ShimLocation shim_;
    std::filesystem::path cache_dir_;
    WorkerPool pool_;
    std::map<ModuleId, Module> modules_;
    std::map<BufferId, Buffer> buffers_;
    uint64_t next_id_ = 1;
};

InfoResult CpuBackend::info() {
    InfoResult r;
    DeviceInfo& d = r.device;
    d.backend = "cpu";
    d.caps.launches = true;
    d.caps.default_repeats = 3;  // emulated launches are slow: fewer timed repeats by default
    d.name = "CPU emulation (" + std::to_string(pool_.size()) + " threads, " + cpu_model_name() + ")";
    d.arch = "host";
    d.sm_count = pool_.size();
    d.total_memory = uint64_t(::sysconf(_SC_PHYS_PAGES)) * uint64_t(::sysconf(_SC_PAGESIZE));
    d.max_threads_per_sm = 1024 * 2;
    d.driver_version = compiler_.version;
    d.notes = "CPU emulation: timings are CPU time (wall clock on " + std::to_string(pool_.size()) +
              " worker threads), not GPU time. Kernels are compiled by " + compiler_.path + ".";
    return r;
}

CompileResult CpuBackend::compile(const CompileRequest& request) {
    const auto start = std::chrono::steady_clock::now();
    CompileResult out;
    CpuCompileOutput built = compile_for_cpu(request, compiler_, shim_, cache_dir_);
    out.diagnostics = std::move(built.diagnostics);
    out.log = std::move(built.log);
    out.options = std::move(built.options);
    out.cache_hit = built.cache_hit;
    out.ok = built.ok && !has_errors(out.diagnostics);
    if (out.ok) {
        auto loaded = KernelModule::load(built.library, built.temporary_dir);
        if (!loaded) {
            out.ok = false;
            out.error = engine_error("MODULE_LOAD_FAILED", loaded.error().message, loaded.error().hint);
        } else {
            auto entry = (*loaded)->kernel(built.kernel_name);
            if (!entry) {
                out.ok = false;
                out.error = engine_error("KERNEL_NOT_FOUND", entry.error().message, entry.error().hint);
            } else {
                out.usage.static_shared_bytes = static_shared_bound(**loaded);
                if (request.load) {
                    out.module = next_id_++;
                    modules_[out.module] = Module{std::move(*loaded), request.path.empty() ? "kernel.cu" : request.path};
                }
            }
        }
    }
    out.compile_ms = elapsed_ms(start);
    return out;
}

AllocateResult CpuBackend::allocate(const AllocateRequest& request) {
    AllocateResult out;
    auto memory = GuardedBuffer::allocate(request.bytes);
    if (!memory) {
        out.error = engine_error("OUT_OF_MEMORY", "buffer `" + request.name + "`: " + memory.error().message,
                                 memory.error().hint);
        return out;
    }
    out.buffer = next_id_++;
    buffers_[out.buffer] = Buffer{request.name, std::move(*memory)};
    return out;
}

UploadResult CpuBackend::upload(const UploadRequest& request) {
    UploadResult out;
    auto it = buffers_.find(request.buffer);
    if (it == buffers_.end()) {
        out.error = engine_error("INVALID_BUFFER", "upload to a buffer that does not exist (id " + std::to_string(request.buffer) + ")");
    } else if (request.repeat) {
        const uint64_t size = it->second.memory.size();
        if (request.data.empty() || request.data.size() > 16 || size % request.data.size() != 0) {
            out.error = engine_error("INVALID_VALUE", "a " + std::to_string(request.data.size()) + "-byte fill pattern does not divide buffer `" +
                                                          it->second.name + "` of " + std::to_string(size) + " bytes");
        } else {
            fill_with_pattern(it->second.memory.data(), size, request.data);
        }
    } else if (request.data.size() > it->second.memory.size()) {
        out.error = engine_error("INVALID_VALUE", "upload of " + std::to_string(request.data.size()) + " bytes into buffer `" +
                                                      it->second.name + "` of " + std::to_string(it->second.memory.size()) + " bytes");
    } else if (!request.data.empty()) {
        std::memcpy(it->second.memory.data(), request.data.data(), request.data.size());
    }
    return out;
}

ReadBackResult CpuBackend::read_back(const ReadBackRequest& request) {
    ReadBackResult out;
    auto it = buffers_.find(request.buffer);
    if (it == buffers_.end()) {
        out.error = engine_error("INVALID_BUFFER", "read-back of a buffer that does not exist (id " + std::to_string(request.buffer) + ")");
        return out;
    }
    out.data.resize(it->second.memory.size());
    if (!out.data.empty()) std::memcpy(out.data.data(), it->second.memory.data(), out.data.size());
    return out;
}

ReleaseResult CpuBackend::release(const ReleaseRequest& request) {
    for (BufferId b : request.buffers) buffers_.erase(b);
    for (ModuleId m : request.modules) modules_.erase(m);
    return {};
}

// No hardware to ask: the same estimate the window makes, on the CUDA-like limits info() reports, so that
// suggestions on the CPU backend are the ones a typical GPU would give.
OccupancyResult CpuBackend::occupancy(const OccupancyRequest& request) {
    OccupancyResult out;
    out.method = "estimate from resource usage (CPU backend emulates CUDA limits)";
    auto it = modules_.find(request.module);
    if (it == modules_.end()) {
        out.error = engine_error("INVALID_MODULE", "the module of kernel `" + request.kernel_name + "` is not loaded",
                                 "compile the kernel again");
        return out;
    }
    const DeviceInfo device = info().device;
    ResourceUsage usage;  // registers are unknown here
    usage.static_shared_bytes = static_shared_bound(*it->second.library);
    const BlockSuggestion best =
        estimate_best_block(device, usage, request.dynamic_shared_bytes, 1, int(request.block_size_limit));
    out.block_size = best.threads;
    out.active_blocks_per_sm = best.blocks_per_sm;
    out.occupancy = best.occupancy;
    out.min_grid_size = best.blocks_per_sm * std::max(device.sm_count, 1);
    for (int threads : request.block_sizes)
        out.active_blocks.push_back(occupancy_for_block(device, usage, request.dynamic_shared_bytes, threads).blocks_per_sm);
    return out;
}

std::optional<EngineError> CpuBackend::check_config(const LaunchRequest& r, const Module& m) const {
    const DeviceInfo limits;  // CUDA's usual limits, as info() reports them
    const std::string hint = "the CPU backend enforces the same limits as a GPU";
    if (!r.block.count() || !r.grid.count())
        return engine_error("INVALID_CONFIGURATION", "grid " + r.grid.str() + " and block " + r.block.str() + " must not be 0 in any dimension", hint);
    if (r.block.count() > uint64_t(limits.max_threads_per_block) || r.block.x > limits.max_block.x ||
        r.block.y > limits.max_block.y || r.block.z > limits.max_block.z)
        return engine_error("INVALID_CONFIGURATION", "block " + r.block.str() + " exceeds the limits (1024 threads, 1024x1024x64)", hint);
    if (r.grid.x > limits.max_grid.x || r.grid.y > limits.max_grid.y || r.grid.z > limits.max_grid.z)
        return engine_error("INVALID_CONFIGURATION", "grid " + r.grid.str() + " exceeds the limits (2147483647x65535x65535)", hint);
    const uint64_t tls = m.library->tls_bytes();
    if (r.dynamic_shared_bytes > uint32_t(limits.max_shared_per_block) ||
        r.dynamic_shared_bytes + tls > uint64_t(limits.max_shared_per_block) + sizeof(cp_abi::ThreadState) + 64)
        return engine_error("INVALID_CONFIGURATION",
                            "shared memory per block (" + std::to_string(r.dynamic_shared_bytes) + " bytes dynamic) exceeds 48 KiB",
                            hint);
    return std::nullopt;
}

LaunchResult CpuBackend::launch(const LaunchRequest& request) {
    LaunchResult out;
    auto mod = modules_.find(request.module);
    if (mod == modules_.end()) {
        out.error = engine_error("INVALID_MODULE", "launch of a module that is not loaded (id " + std::to_string(request.module) + ")");
        return out;
    }
    Module& module = mod->second;
    auto entry = module.library->kernel(request.kernel_name);
    if (!entry) {
        out.error = engine_error("KERNEL_NOT_FOUND", entry.error().message, entry.error().hint);
        return out;
    }
    if (auto bad = check_config(request, module)) {
        out.error = std::move(bad);
        return out;
    }

    // Arguments: like cuLaunchKernel's kernelParams, an array of pointers to each parameter's value.
    const std::vector<cp_abi::ParamInfo>& params = (*entry)->params;
    if (request.args.size() != params.size()) {
        out.error = engine_error("INVALID_ARGUMENTS", "kernel `" + request.kernel_name + "` takes " + std::to_string(params.size()) +
                                                          " parameters, the launch passed " + std::to_string(request.args.size()));
        return out;
    }
    struct alignas(16) Slot {
        std::byte bytes[16];
    };
    std::vector<size_t> offsets;
    size_t slots = 0;
    for (const cp_abi::ParamInfo& p : params) {
        offsets.push_back(slots);
        slots += (std::max<size_t>(p.size, 1) + 15) / 16;
    }
    std::vector<Slot> storage(slots);
    std::vector<void*> pointers(params.size());
    FaultReportContext report{module.library.get(), module.source_path, {}};
    for (size_t i = 0; i < params.size(); ++i) {
        const KernelArg& a = request.args[i];
        const cp_abi::ParamInfo& p = params[i];
        void* slot = storage[offsets[i]].bytes;
        pointers[i] = slot;
        const std::string which = "parameter " + std::to_string(i + 1) + (a.name.empty() ? "" : " (`" + a.name + "`)");
        if (a.buffer) {
            auto b = buffers_.find(a.buffer);
            if (b == buffers_.end()) {
                out.error = engine_error("INVALID_BUFFER", which + " names a buffer that does not exist");
                return out;
            }
            if (!p.is_pointer) {
                out.error = engine_error("INVALID_ARGUMENTS", which + " is a value of " + std::to_string(p.size) +
                                                                  " bytes in the kernel, but a buffer was passed");
                return out;
            }
            void* data = b->second.memory.data();
            std::memcpy(slot, &data, sizeof data);
            report.buffers.push_back({b->second.name, &b->second.memory, p.pointee_size});
        } else if (a.scalar.size() != p.size) {
            out.error = engine_error("INVALID_ARGUMENTS", which + " takes " + std::to_string(p.size) + " bytes, the launch passed " +
                                                              std::to_string(a.scalar.size()));
            return out;
        } else {
            std::memcpy(slot, a.scalar.data(), a.scalar.size());
        }
    }
    // Buffers not passed to this kernel can still be reached by a wild index: name them too.
    for (auto& [id, b] : buffers_) {
        const bool listed = std::any_of(report.buffers.begin(), report.buffers.end(),
                                        [&](const BufferForReport& r) { return r.memory == &b.memory; });
        if (!listed) report.buffers.push_back({b.name, &b.memory, 0});
    }

    GridLaunch job;
    job.module = module.library.get();
    job.entry = *entry;
    job.args = pointers.data();
    job.grid = request.grid;
    job.block = request.block;
    job.dynamic_shared_bytes = request.dynamic_shared_bytes;
    job.order = options_.order;
    job.seed = options_.seed;
    std::vector<BlockTrace> trace;
    if (request.trace) trace.resize(request.grid.count());

    int warmup = std::clamp(request.timing.warmup, 0, kMaxLaunches);
    int repeats = std::clamp(request.timing.repeats, 1, kMaxLaunches);
    // As on the CUDA backend, every run of one request sees the same inputs: a kernel that updates its
    // buffers in place (x[i] += 1, atomics) leaves them as after exactly one run, and repeats time the same work.
    std::vector<std::pair<GuardedBuffer*, std::vector<std::byte>>> snapshots;
    if (warmup + repeats > 1) {
        try {
            for (const KernelArg& a : request.args) {
                if (!a.buffer) continue;
                GuardedBuffer* memory = &buffers_.at(a.buffer).memory;
                const bool seen = std::any_of(snapshots.begin(), snapshots.end(), [&](const auto& s) { return s.first == memory; });
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
    for (int run = 0; run < warmup + repeats; ++run) {
        if (run > 0)
            for (const auto& [memory, copy] : snapshots) std::memcpy(memory->data(), copy.data(), copy.size());
        job.capture_printf = run == 0;  // every run prints the same: the first one's output is shown
        job.trace = request.trace && run == warmup + repeats - 1 ? &trace : nullptr;
        const auto start = std::chrono::steady_clock::now();
        GridOutcome outcome = pool_.run(job);
        const double ms = elapsed_ms(start);
        if (run == 0) {
            out.printf_output = std::move(outcome.printf_output);
            if (!out.printf_output.empty() && warmup + repeats > 1)
                out.printf_output += "[output of the " + std::to_string(warmup + repeats - 1) +
                                     " further launches (warmup and repeats) not shown]\n";
        }
        if (!outcome.ok) {
            out.error = describe_crash(outcome.failure, report);
            return out;
        }
        // Writes just before a buffer's start land on its page without faulting: look for them now.
        for (auto& [id, b] : buffers_) {
            if (b.memory.slack_intact()) continue;
            b.memory.restore_slack();
            out.error = engine_error("OUT_OF_BOUNDS",
                                     "a thread wrote before the start of buffer `" + b.name +
                                         "` (found after the launch, so the thread and line are not known)",
                                     "look for a negative index, e.g. a[i - 1] when i is 0");
            return out;
        }
        if (run >= warmup) samples.push_back(ms);
    }
    out.timing = TimingStats::from_samples(std::move(samples), true);
    out.ok = true;
    if (request.trace) {
        out.trace = std::move(trace);
        out.trace_unit = "worker";
    }
    return out;
}

}  // namespace

Result<CpuBackendOptions> cpu_backend_options_from_env() {
    CpuBackendOptions o;
    if (const char* w = std::getenv("CUDA_PLAYGROUND_CPU_WORKERS"); w && *w) {
        char* end = nullptr;
        const long n = std::strtol(w, &end, 10);
        if (*end || n < 0 || n > 4096)
            return make_error(std::string("CUDA_PLAYGROUND_CPU_WORKERS=") + w + " is not a number of threads",
                              "use 1 for deterministic runs, or 0 for one per core");
        o.workers = int(n);
    }
    if (const char* s = std::getenv("CUDA_PLAYGROUND_CPU_SEED"); s && *s) {
        char* end = nullptr;
        o.seed = std::strtoull(s, &end, 10);
        if (*end) return make_error(std::string("CUDA_PLAYGROUND_CPU_SEED=") + s + " is not a number");
    }
    if (const char* order = std::getenv("CUDA_PLAYGROUND_CPU_ORDER"); order && *order) {
        std::string v = order;
        if (const size_t colon = v.find(':'); colon != std::string::npos) {
            char* end = nullptr;
            o.seed = std::strtoull(v.c_str() + colon + 1, &end, 10);
            if (*end) return make_error("CUDA_PLAYGROUND_CPU_ORDER=" + v + ": the seed after ':' is not a number");
            v.resize(colon);
        }
        if (v == "natural") o.order = ThreadOrder::Natural;
        else if (v == "reversed") o.order = ThreadOrder::Reversed;
        else if (v == "shuffled") o.order = ThreadOrder::Shuffled;
        else return make_error("CUDA_PLAYGROUND_CPU_ORDER=" + v + " is not an order", "use natural, reversed or shuffled[:SEED]");
    }
    return o;
}

Result<std::unique_ptr<Backend>> make_cpu_backend_with(const CpuBackendOptions& options) {
    auto compiler = find_host_compiler(options.compiler);
    if (!compiler) return compiler.error();
    auto shim = find_shim();
    if (!shim) return shim.error();
    std::filesystem::path cache = options.cache_dir.empty() ? cpu_cache_dir()
                                  : options.cache_dir == "-" ? std::filesystem::path()
                                                             : std::filesystem::path(options.cache_dir);
    return std::unique_ptr<Backend>(new CpuBackend(options, std::move(*compiler), std::move(*shim), std::move(cache)));
}

Result<std::unique_ptr<Backend>> make_cpu_backend() {
    auto options = cpu_backend_options_from_env();
    if (!options) return options.error();
    return make_cpu_backend_with(*options);
}

}  // namespace cp
