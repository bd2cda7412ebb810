// The CPU backend's requests: device info, compile (host compiler + cache, in this process), buffers in
// shared memory (uploads and read-backs are copies here), and launches in the sandboxed CPU worker
// (cpu_worker.h), whose crash reports get their source lines here.
//
// Sections: the static shared bound · the backend: info, compile, buffers (allocate, upload, read back, release),
// occupancy, launch, streams · options from the environment · the registry's factories
#include "core/cpu/cpu_backend.h"
#include "core/text_util.h"

#include "core/cpu/cpu_executor.h"
#include "core/cpu/cpu_worker.h"
#include "core/cpu/fault_report.h"
#include "core/cpu/guarded_memory.h"
#include "core/cpu/host_compiler.h"
#include "core/toolkit/nvrtc_compiler.h"
#include "core/engine/occupancy.h"
#include "core/worker/sandbox.h"
#include "core/clock.h"

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

// Static __shared__ arrays are thread-local variables: the TLS size bounds them from above.
int static_shared_bound(const ModuleFacts& facts) {
    const uint64_t state = sizeof(cp_abi::ThreadState);
    return int(facts.tls_bytes > state ? facts.tls_bytes - state : 0);
}

class CpuBackend final : public Backend {
public:
    CpuBackend(const CpuBackendOptions& options, HostCompiler compiler, ShimLocation shim, std::filesystem::path cache,
               std::unique_ptr<KernelRunner> runner)
        : options_(options), compiler_(std::move(compiler)), shim_(std::move(shim)), cache_dir_(std::move(cache)),
          runner_(std::move(runner)) {}
    ~CpuBackend() override;

    InfoResult info() override;
    CompileResult compile(const CompileRequest& request) override;
    AllocateResult allocate(const AllocateRequest& request) override;
    UploadResult upload(const UploadRequest& request) override;
    LaunchResult launch(const LaunchRequest& request) override;
    ReadBackResult read_back(const ReadBackRequest& request) override;
    ReleaseResult release(const ReleaseRequest& request) override;
    OccupancyResult occupancy(const OccupancyRequest& request) override;
    StreamsResult streams(const StreamsRequest& request) override;

private:
    struct Module {
        std::filesystem::path library_path, temporary_dir;  // what the worker loads and addr2line reads
        std::string source_path;
        ModuleFacts facts;
        size_t buffer_align = 1;  // how aligned its device code needs buffer starts (buffer_start_alignment)
    };
    struct Buffer {
        std::string name;
        SharedMemoryFile memory;
    };
    // Moves a buffer whose start is less aligned than `align` to a new shared-memory file starting that
    // aligned (same id, same contents).
    std::optional<EngineError> realign(BufferId id, size_t align);
    // " (line 5)" for a crash report's code site.
    std::string location(const std::optional<CodeSite>& site, int* user_line = nullptr) const;
    void forget_module(ModuleId id);

    CpuBackendOptions options_;
    HostCompiler compiler_;
    ShimLocation shim_;
    std::filesystem::path cache_dir_;
    std::unique_ptr<KernelRunner> runner_;
    std::map<ModuleId, Module> modules_;
    std::map<BufferId, Buffer> buffers_;
    uint64_t next_id_ = 1;
};

CpuBackend::~CpuBackend() {
    runner_.reset();  // the worker first: it still maps the buffers and libraries
    for (auto& [id, m] : modules_) {
        std::error_code ec;
        if (!m.temporary_dir.empty()) std::filesystem::remove_all(m.temporary_dir, ec);
    }
}

void CpuBackend::forget_module(ModuleId id) {
    auto it = modules_.find(id);
    if (it == modules_.end()) return;
    runner_->unload_module(id);
    std::error_code ec;
    if (!it->second.temporary_dir.empty()) std::filesystem::remove_all(it->second.temporary_dir, ec);
    modules_.erase(it);
}

std::string CpuBackend::location(const std::optional<CodeSite>& site, int* user_line) const {
    if (!site) return "";
    auto it = modules_.find(site->module);
    if (it == modules_.end()) return site->in_function;
    return code_site_text(*site, it->second.library_path.string(), it->second.source_path, user_line);
}

InfoResult CpuBackend::info() {
    InfoResult r;
    DeviceInfo& d = r.device;
    const int workers = runner_->workers();
    d.backend = "cpu";
    d.caps.launches = true;
    d.caps.default_repeats = 3;  // emulated launches are slow: fewer timed repeats by default
    d.caps.debug_steps = true;  // LaunchRequest::debug_block: one block recorded round by round (the debugger)
    d.caps.thread_order = true;  // a block's fibers run in the order asked (LaunchRequest::thread_order)
    d.name = "CPU emulation (" + count_text(workers, "thread") + ", " + cpu_model_name() + ")";
    d.ordinal = options_.device;
    d.device_count = std::max(1, options_.device_count);
    // Several CPU "devices" are workers sharing one CPU, never GPUs: their names say so wherever they are shown.
    if (d.device_count > 1)
        d.name = "CPU worker " + std::to_string(d.ordinal) + " of " + std::to_string(d.device_count) + " (" + d.name + ")";
    d.arch = "host";
    d.sm_count = workers;
    d.total_memory = uint64_t(::sysconf(_SC_PHYS_PAGES)) * uint64_t(::sysconf(_SC_PAGESIZE));
    d.max_threads_per_sm = 1024 * 2;
    d.driver_version = compiler_.version;
    d.notes = "CPU emulation: timings are CPU time (wall clock on " + std::to_string(workers) +
              " worker threads), not GPU time. Kernels are compiled by " + compiler_.path + (options_.in_process
                  ? " and run in this process, without a sandbox."
                  : " and run in a sandboxed worker process.");
    return r;
}

CompileResult CpuBackend::compile(const CompileRequest& request) {
    const auto start = std::chrono::steady_clock::now();
    runner_->prepare();  // the worker process starts while the compiler runs
    CompileResult out;
    CpuCompileOutput built = compile_for_cpu(request, compiler_, shim_, cache_dir_);
    out.diagnostics = std::move(built.diagnostics);
    out.log = std::move(built.log);
    out.options = std::move(built.options);
    out.cache_hit = built.cache_hit;
    out.ok = built.ok && !has_errors(out.diagnostics);
    if (!out.ok && built.host_compiler_ran && !built.nvrtc_refused) {
        // The host compiler failed: NVRTC's words (what `compile` and the CUDA backend show: `expected a ";"`) come
        // first; the host compiler's, about the translated source ("'p' was not declared"), only when NVRTC
        // finds nothing wrong, i.e. the CPU emulation itself cannot build valid CUDA. (The device-code check in
        // compile_for_cpu is NVRTC's front end only; this full compile also catches what it lets through.)
        CompileRequest check = request;
        check.load = false;
        CompileResult nvrtc = compile_with_nvrtc(check, kArchWithoutDevice, nullptr);
        if (has_errors(nvrtc.diagnostics)) out.diagnostics = std::move(nvrtc.diagnostics);
    }
    auto cleanup = [&] {
        std::error_code ec;
        if (!built.temporary_dir.empty()) std::filesystem::remove_all(built.temporary_dir, ec);
    };
    if (!out.ok) {
        cleanup();
        out.compile_ms = ms_since(start);
        return out;
    }
    const ModuleId id = next_id_++;
    Module module;
    module.library_path = built.library;
    module.temporary_dir = built.temporary_dir;
    module.source_path = request.path.empty() ? "kernel.cu" : request.path;
    module.buffer_align = built.buffer_align;
    Result<ModuleFacts> facts =
        runner_->load_module(id, built.library.string(), built.kernel_name, "kernel `" + built.kernel_name + "`");
    if (!facts) {
        cleanup();
        out.ok = false;
        out.error = to_engine_error(facts.error(), "MODULE_LOAD_FAILED", ErrorKind::Compile);
    } else {
        module.facts = *facts;
        out.usage.static_shared_bytes = static_shared_bound(*facts);
        modules_[id] = std::move(module);
        if (request.load) out.module = id;
        else forget_module(id);  // compile only: it loaded, so it can be launched; nothing is kept
    }
    out.compile_ms = ms_since(start);
    return out;
}

AllocateResult CpuBackend::allocate(const AllocateRequest& request) {
    AllocateResult out;
    runner_->prepare();
    const auto start = std::chrono::steady_clock::now();  // after the worker's start, which is no allocation
    auto memory = SharedMemoryFile::create(request.name, request.bytes);
    if (!memory) {
        out.error = engine_error(ErrorKind::OutOfMemory, "OUT_OF_MEMORY",
                                 "buffer `" + request.name + "`: " + memory.error().message, memory.error().hint);
        return out;
    }
    const BufferId id = next_id_++;
    if (auto e = runner_->map_buffer(id, request.name, memory->fd(), request.bytes)) {
        out.error = e;
        return out;
    }
    out.buffer = id;
    buffers_[id] = Buffer{request.name, std::move(*memory)};
    out.elapsed_ms = ms_since(start);
    return out;
}

UploadResult CpuBackend::upload(const UploadRequest& request) {
    UploadResult out;
    const auto start = std::chrono::steady_clock::now();
    auto it = buffers_.find(request.buffer);
    if (it == buffers_.end()) {
        out.error = engine_error(ErrorKind::Internal, "INVALID_BUFFER",
                                 "upload to a buffer that does not exist (id " + std::to_string(request.buffer) + ")");
    } else if (request.repeat) {
        const uint64_t size = it->second.memory.size();
        if (request.data.empty() || request.data.size() > 16 || size % request.data.size() != 0) {
            out.error = engine_error(ErrorKind::Internal, "INVALID_VALUE",
                                     "a " + std::to_string(request.data.size()) +
                                         "-byte fill pattern does not divide buffer `" + it->second.name + "` of " +
                                         std::to_string(size) + " bytes");
        } else {
            fill_with_pattern(it->second.memory.data(), size, request.data);
        }
    } else if (request.offset > it->second.memory.size() || request.data.size() > it->second.memory.size() - request.offset) {
        out.error = engine_error(ErrorKind::Internal, "INVALID_VALUE",
                                 "upload of " + std::to_string(request.data.size()) + " bytes at offset " +
                                     std::to_string(request.offset) + " into buffer `" + it->second.name + "` of " +
                                     std::to_string(it->second.memory.size()) + " bytes");
    } else if (!request.data.empty()) {
        std::memcpy(it->second.memory.data() + request.offset, request.data.data(), request.data.size());
    }
    out.elapsed_ms = ms_since(start);
    return out;
}

ReadBackResult CpuBackend::read_back(const ReadBackRequest& request) {
    ReadBackResult out;
    auto it = buffers_.find(request.buffer);
    if (it == buffers_.end()) {
        out.error =
            engine_error(ErrorKind::Internal, "INVALID_BUFFER",
                         "read-back of a buffer that does not exist (id " + std::to_string(request.buffer) + ")");
        return out;
    }
    const auto start = std::chrono::steady_clock::now();
    const std::byte* data = it->second.memory.data();
    if (request.in_place_ok) {  // the app maps the buffer: the caller reads it there (a 4K picture is 33 MB)
        out.in_place = data;
        out.in_place_bytes = it->second.memory.size();
        out.elapsed_ms = ms_since(start);
        return out;
    }
    // One pass: resize() would first zero the 33 MB of a 4K picture, then copy over them.
    out.data.assign(data, data + it->second.memory.size());
    out.elapsed_ms = ms_since(start);
    return out;
}

ReleaseResult CpuBackend::release(const ReleaseRequest& request) {
    for (BufferId b : request.buffers) {
        if (!buffers_.count(b)) continue;
        runner_->unmap_buffer(b);
        buffers_.erase(b);
    }
    for (ModuleId m : request.modules) forget_module(m);
    return {};
}

// No hardware to ask: the same estimate the window makes, on the CUDA-like limits info() reports, so that
// suggestions on the CPU backend are the ones a typical GPU would give.
OccupancyResult CpuBackend::occupancy(const OccupancyRequest& request) {
    OccupancyResult out;
    out.method = "estimate from resource usage (CPU backend emulates CUDA limits)";
    auto it = modules_.find(request.module);
    if (it == modules_.end()) {
        out.error = engine_error(ErrorKind::Internal, "INVALID_MODULE",
                                 "the module of kernel `" + request.kernel_name + "` is not loaded",
                                 "compile the kernel again");
        return out;
    }
    const DeviceInfo device = info().device;
    ResourceUsage usage;  // registers are unknown here
    usage.static_shared_bytes = static_shared_bound(it->second.facts);
    const BlockSuggestion best =
        estimate_best_block(device, usage, request.dynamic_shared_bytes, 1, int(request.block_size_limit));
    out.block_size = best.threads;
    out.active_blocks_per_sm = best.blocks_per_sm;
    out.occupancy = best.occupancy;
    out.min_grid_size = best.blocks_per_sm * std::max(device.sm_count, 1);
    return out;
}

// A buffer ends exactly at its guard page so that any access past its end faults, and so starts only as
// aligned as its size allows (data_offset, guarded_memory.cpp): a float buffer of 601 x 401 elements starts
// 4-byte aligned. A GPU starts buffers 256-byte aligned, and kernels that read such a buffer as float4s rely
// on it; for those (buffer_start_alignment) the buffer moves once to a start that aligned, its last few bytes
// then short of the guard (there the per-access check, access_bounds.h, finds reads and writes).
std::optional<EngineError> CpuBackend::realign(BufferId id, size_t align) {
    auto it = buffers_.find(id);
    if (it == buffers_.end() || it->second.memory.start_align() >= align ||
        reinterpret_cast<uintptr_t>(it->second.memory.data()) % align == 0)
        return std::nullopt;
    Buffer& old = it->second;
    auto moved = SharedMemoryFile::create(old.name, old.memory.size(), align);
    if (!moved)
        return engine_error(ErrorKind::OutOfMemory, "OUT_OF_MEMORY",
                            "buffer `" + old.name + "`: " + moved.error().message, moved.error().hint);
    if (old.memory.size()) std::memcpy(moved->data(), old.memory.data(), old.memory.size());
    runner_->unmap_buffer(id);
    if (auto e = runner_->map_buffer(id, old.name, moved->fd(), old.memory.size(), align)) {
        // Put the old one back: the buffer keeps working as before, this launch reports why it could not move.
        (void)runner_->map_buffer(id, old.name, old.memory.fd(), old.memory.size(), old.memory.start_align());
        return e;
    }
    old.memory = std::move(*moved);
    return std::nullopt;
}

LaunchResult CpuBackend::launch(const LaunchRequest& request) {
    if (auto m = modules_.find(request.module); m != modules_.end() && m->second.buffer_align > 1)
        for (const KernelArg& a : request.args)
            if (a.buffer)
                if (auto e = realign(a.buffer, m->second.buffer_align)) {
                    LaunchResult failed;
                    failed.error = e;
                    return failed;
                }
    ExecutorLaunch run = runner_->launch(request);
    if (run.result.memory) {
        // The worker counts per site (the hook's return address, just past the call): each becomes its line
        // in the user's file (addr2line, once a site), and a line's sites add up.
        auto m = modules_.find(request.module);
        map_recording_lines(*run.result.memory, [&](uint64_t site) {
            return m == modules_.end() || site == 0
                       ? 0
                       : user_line_of(m->second.library_path.string(), site - 1, m->second.source_path);
        });
    }
    if (run.result.error) {
        int line = 0;  // the user's line, which the window's editor marks
        const std::string where = location(run.site, &line);
        place_code_site(*run.result.error, where, line);
    }
    return run.result;
}

// No copy engines and no concurrent kernels: the chunks' operations run one after another, in the order a
// single stream would run them, each timed by the host clock. The report says so (caps.concurrent_streams).
StreamsResult CpuBackend::streams(const StreamsRequest& request) {
    StreamsResult out;
    out.host_clock = true;
    const auto origin = std::chrono::steady_clock::now();
    auto since_origin = [&] { return ms_since(origin); };
    auto range = [&](const StreamCopy& c, size_t chunk) -> std::byte* {
        auto it = buffers_.find(c.buffer);
        if (it == buffers_.end()) {
            out.error = engine_error(ErrorKind::Internal, "INVALID_BUFFER",
                                     "a copy of chunk " + std::to_string(chunk) +
                                         " names a buffer that does not exist (id " + std::to_string(c.buffer) + ")");
            return nullptr;
        }
        const uint64_t size = it->second.memory.size();
        if (c.offset > size || c.bytes > size - c.offset) {
            out.error = engine_error(ErrorKind::Internal, "INVALID_VALUE",
                                     "a copy of chunk " + std::to_string(chunk) + ": " + std::to_string(c.bytes) +
                                         " bytes at offset " + std::to_string(c.offset) + " do not fit in buffer `" +
                                         it->second.name + "` of " + std::to_string(size) + " bytes");
            return nullptr;
        }
        return it->second.memory.data() + c.offset;
    };
    for (size_t k = 0; k < request.chunks.size(); ++k) {
        const StreamChunk& c = request.chunks[k];
        auto record = [&](StreamOpKind kind, double start, uint64_t bytes) {
            out.ops.push_back({c.stream, int(k), kind, start, since_origin(), bytes});
        };
        for (const StreamCopy& copy : c.h2d) {
            std::byte* dst = range(copy, k);
            if (!dst) return out;
            if (copy.data.size() != copy.bytes) {
                out.error =
                    engine_error(ErrorKind::Internal, "INVALID_VALUE",
                                 "a copy of chunk " + std::to_string(k) + " carries " +
                                     std::to_string(copy.data.size()) + " bytes for " + std::to_string(copy.bytes));
                return out;
            }
            const double start = since_origin();
            if (copy.bytes) std::memcpy(dst, copy.data.data(), copy.bytes);
            record(StreamOpKind::H2D, start, copy.bytes);
        }
        LaunchRequest launch_request;
        launch_request.module = request.module;
        launch_request.kernel_name = request.kernel_name;
        launch_request.grid = c.grid;
        launch_request.block = request.block;
        launch_request.dynamic_shared_bytes = request.dynamic_shared_bytes;
        launch_request.args = c.args;
        launch_request.timing = {0, 1, false};
        const double start = since_origin();
        LaunchResult launched = launch(launch_request);
        out.printf_output += launched.printf_output;
        if (launched.error) {
            out.error = std::move(launched.error);
            out.error->message = "chunk " + std::to_string(k) + " (grid " + c.grid.str() + "): " + out.error->message;
            return out;
        }
        record(StreamOpKind::Kernel, start, 0);
        for (const StreamCopy& copy : c.d2h) {
            const std::byte* src = range(copy, k);
            if (!src) return out;
            const double copy_start = since_origin();
            out.d2h_data.emplace_back(src, src + copy.bytes);
            record(StreamOpKind::D2H, copy_start, copy.bytes);
        }
    }
    for (const StreamOp& op : out.ops) out.total_ms = std::max(out.total_ms, op.end_ms);
    out.one_stream_ms = out.total_ms;  // the same operations in the same order: one stream is this run
    out.ok = true;
    return out;
}

}  // namespace

Result<CpuBackendOptions> cpu_backend_options_from_env() {
    CpuBackendOptions o;
    if (const char* w = std::getenv("CUDA_PLAYGROUND_CPU_WORKERS"); w && *w) {
        char* end = nullptr;
        const long n = std::strtol(w, &end, 10);
        if (*end || n < 0 || n > 4096)
            return make_error(ErrorKind::UserInput,
                              std::string("CUDA_PLAYGROUND_CPU_WORKERS=") + w + " is not a number of threads",
                              "use 1 for deterministic runs, or 0 for one per core");
        o.workers = int(n);
    }
    if (const char* n = std::getenv("CUDA_PLAYGROUND_CPU_DEVICES"); n && *n) {
        char* end = nullptr;
        const long count = std::strtol(n, &end, 10);
        if (*end || count < 1 || count > 64)
            return make_error(
                ErrorKind::UserInput,
                std::string("CUDA_PLAYGROUND_CPU_DEVICES=") + n + " is not a number of devices from 1 to 64",
                "unset it for one CPU device, or e.g. set it to 3 to split `devices:` lessons over 3 CPU workers");
        o.device_count = int(count);
    }
    if (const char* s = std::getenv("CUDA_PLAYGROUND_CPU_SEED"); s && *s) {
        char* end = nullptr;
        o.seed = std::strtoull(s, &end, 10);
        if (*end)
            return make_error(ErrorKind::UserInput, std::string("CUDA_PLAYGROUND_CPU_SEED=") + s + " is not a number");
    }
    if (const char* order = std::getenv("CUDA_PLAYGROUND_CPU_ORDER"); order && *order) {
        std::string v = order;
        if (const size_t colon = v.find(':'); colon != std::string::npos) {
            char* end = nullptr;
            o.seed = std::strtoull(v.c_str() + colon + 1, &end, 10);
            if (*end)
                return make_error(ErrorKind::UserInput,
                                  "CUDA_PLAYGROUND_CPU_ORDER=" + v + ": the seed after ':' is not a number");
            v.resize(colon);
        }
        if (v == "natural") o.order = ThreadOrder::Natural;
        else if (v == "reversed") o.order = ThreadOrder::Reversed;
        else if (v == "shuffled") o.order = ThreadOrder::Shuffled;
        else
            return make_error(ErrorKind::UserInput, "CUDA_PLAYGROUND_CPU_ORDER=" + v + " is not an order",
                              "use natural, reversed or shuffled[:SEED]");
    }
    return o;
}

Result<std::unique_ptr<Backend>> make_cpu_backend_with(const CpuBackendOptions& options) {
    auto compiler = find_host_compiler(options.compiler);
    if (!compiler) return compiler.error();
    auto shim = find_shim();
    if (!shim) return shim.error();
    std::filesystem::path cache = cpu_cache_dir_for(options.cache_dir);
    ExecutorOptions executor;
    executor.workers = options.workers > 0 ? options.workers : int(std::max(1u, std::thread::hardware_concurrency()));
    executor.order = options.order;
    executor.seed = options.seed;
    std::unique_ptr<KernelRunner> runner = options.in_process ? make_cpu_executor(executor) : make_cpu_worker(executor);
    return std::unique_ptr<Backend>(
        new CpuBackend(options, std::move(*compiler), std::move(*shim), std::move(cache), std::move(runner)));
}

Result<std::unique_ptr<Backend>> make_cpu_backend(int device) {
    auto options = cpu_backend_options_from_env();
    if (!options) return options.error();
    if (device < 0 || device >= options->device_count)
        return make_error(ErrorKind::UserInput,
                          "there is no CPU device " + std::to_string(device) + ": the CPU backend has " +
                              count_text(uint64_t(options->device_count), "device", "devices") + " (numbered from 0)",
                          "set CUDA_PLAYGROUND_CPU_DEVICES=N to have N CPU workers play N devices");
    options->device = device;
    return make_cpu_backend_with(*options);
}

}  // namespace cp
