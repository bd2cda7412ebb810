// CUDA backend, part 1: start-up (driver, device, primary context), device facts, compile + module load,
// buffers, and what happens after sticky errors. Launching lives in cuda_launch.cpp, streamed runs in
// cuda_streams.cpp.
//
// Sections: start-up · errors and recovery · compile · buffers (guard zones, allocate, upload, read back, release)
#include "core/cuda/cuda_backend.h"
#include "core/engine/trace_wrapper.h"

#include "core/cuda/cuda_backend_factory.h"
#include "core/cuda/cuda_error_words.h"
#include "core/cuda/guard_zones.h"
#include "core/toolkit/nvrtc_compiler.h"
#include "core/cuda/ptx_memory.h"
#include "core/cuda/recording_copy.h"
#include "core/clock.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <list>
#include <mutex>
#include <optional>
#include <string_view>

namespace cp {

namespace {

// Page-locked host memory for one pinned copy (what cudaMallocHost gives a program), freed on scope exit.
// Allocated per copy: it never outlives a context reset, and its cost is outside the timed copy.
struct PinnedStaging {
    const CudaDriver& d;
    void* data = nullptr;
    PinnedStaging(const CudaDriver& driver, size_t bytes) : d(driver) {
        if (!d.MemAllocHost || !d.MemFreeHost || d.MemAllocHost(&data, std::max<size_t>(bytes, 1)) != CUDA_SUCCESS)
            data = nullptr;
    }
    ~PinnedStaging() {
        if (data) d.MemFreeHost(data);
    }
    PinnedStaging(const PinnedStaging&) = delete;
    PinnedStaging& operator=(const PinnedStaging&) = delete;
};

EngineError no_pinned_memory(uint64_t bytes) {
    return engine_error(ErrorKind::OutOfMemory, "CUDA_ERROR_OUT_OF_MEMORY",
                        "could not allocate " + std::to_string(bytes) + " bytes of pinned (page-locked) host memory",
                        "run without pinned host memory");
}

constexpr const char* kUseCpu = ": the CUDA backend is unavailable; use --backend cpu";
constexpr size_t kPrintfFifoBytes = 8u << 20;  // the driver's device printf buffer (default 1 MiB)

std::string mib(uint64_t bytes) { return std::to_string((bytes + (1u << 19)) >> 20) + " MiB"; }

bool image_contains(const std::vector<std::byte>& image, std::string_view text) {
    const auto* begin = reinterpret_cast<const char*>(image.data());
    return std::string_view(begin, image.size()).find(text) != std::string_view::npos;
}

// `why` is also the Error's reason: `--backend auto`'s note words the rest itself.
Error unavailable(const std::string& why, std::string hint = {}) {
    Error e = make_error(ErrorKind::Unsupported, why + kUseCpu, std::move(hint));
    e.reason = why;
    return e;
}

}  // namespace

// ---- start-up ------------------------------------------------------------------------------------------

Result<std::unique_ptr<CudaBackend>> CudaBackend::create(const CudaDriver& d, int ordinal) {
    CUresult r = d.Init(0);
    if (r == CUDA_ERROR_STUB_LIBRARY)
        return unavailable("no NVIDIA driver found (" + d.library_name +
                           " is the CUDA toolkit's stub library, not a driver)");
    if (r == CUDA_ERROR_NO_DEVICE)
        return unavailable("the NVIDIA driver is present but there is no CUDA device (CUDA_ERROR_NO_DEVICE)",
                           "check nvidia-smi and CUDA_VISIBLE_DEVICES");
    if (r != CUDA_SUCCESS)
        return unavailable("the NVIDIA driver could not be initialised (" + d.error_name(r) + ": " +
                           d.error_string(r) + ")");
    int count = 0;
    if (d.DeviceGetCount(&count) != CUDA_SUCCESS || count == 0)
        return unavailable("the NVIDIA driver is present but there is no CUDA device",
                           "check nvidia-smi and CUDA_VISIBLE_DEVICES");
    if (ordinal < 0 || ordinal >= count)
        return make_error(
            ErrorKind::UserInput,
            "there is no CUDA device " + std::to_string(ordinal) + ": this machine has " + std::to_string(count) +
                (count == 1 ? " GPU (device 0)" : " GPUs (devices 0 to " + std::to_string(count - 1) + ")"),
            "choose a device from 0 to " + std::to_string(count - 1) +
                "; nvidia-smi lists them, "
                "and CUDA_VISIBLE_DEVICES may hide some");
    CUdevice device = 0;
    CUcontext context = nullptr;
    if ((r = d.DeviceGet(&device, ordinal)) != CUDA_SUCCESS || (r = d.DevicePrimaryCtxRetain(&context, device)) != CUDA_SUCCESS)
        return unavailable("the CUDA device could not be opened (" + d.error_name(r) + ": " + d.error_string(r) + ")");
    std::unique_ptr<CudaBackend> backend(new CudaBackend(d, device, context, ordinal, count));
    if (backend->arch_.empty())
        return unavailable("NVRTC " + nvrtc_version_text() + " cannot compile for this GPU (" + backend->info_.arch +
                           ")");
    return backend;
}

Result<std::unique_ptr<Backend>> make_cuda_backend_in_process() {
    std::string why, detail;
    const CudaDriver* driver = cuda_driver(&why, &detail);
    if (!driver) return unavailable(why, detail);
    auto backend = CudaBackend::create(*driver);
    if (!backend) return backend.error();
    return std::unique_ptr<Backend>(std::move(*backend));
}

Result<std::unique_ptr<Backend>> make_cuda_backend_from_library(const std::string& libcuda_path) {
    // Backends keep a reference to their driver table, so tables loaded here live as long as the process.
    static std::mutex mutex;
    static std::list<CudaDriver> loaded;
    std::string why, detail;
    auto driver = load_cuda_driver(libcuda_path, &why, &detail);
    if (!driver) return unavailable(why, detail);
    std::lock_guard lock(mutex);
    auto backend = CudaBackend::create(loaded.emplace_back(std::move(*driver)));
    if (!backend) return backend.error();
    return std::unique_ptr<Backend>(std::move(*backend));
}

void CudaBackend::run_as_worker(uint64_t id_base) {
    worker_ = true;
    next_module_ = id_base + 1;
    next_buffer_ = id_base + 1;
}

CudaBackend::CudaBackend(const CudaDriver& driver, CUdevice device, CUcontext context, int ordinal, int count)
    : d_(driver), device_(device), context_(context) {
    d_.CtxSetCurrent(context_);
    read_device_info();
    info_.ordinal = ordinal;
    info_.device_count = count;
    arch_ = nvrtc_arch_for_device(info_.cc_major, info_.cc_minor);
    info_.notes = "kernels are compiled by NVRTC " + nvrtc_version_text() + " for " +
                  (arch_.empty() ? std::string("(no supported architecture)") : arch_);
    if (arch_.rfind("compute_", 0) == 0) info_.notes += " (PTX, compiled for this GPU by the driver)";
    prepare_context();
}

CudaBackend::~CudaBackend() {
    if (!context_lost_) {  // after a sticky error every call would fail: just let go of the context
        d_.CtxSetCurrent(context_);
        for (auto& [id, b] : buffers_) d_.MemFree(b.base);
        for (auto& [id, m] : modules_) d_.ModuleUnload(m.module);
        if (l2_flush_buffer_) d_.MemFree(l2_flush_buffer_);
        if (guard_staging_) d_.MemFreeHost(guard_staging_);
        if (start_) d_.EventDestroy(start_);
        if (stop_) d_.EventDestroy(stop_);
    }
    d_.DevicePrimaryCtxRelease(device_);
}

void CudaBackend::prepare_context() {
    d_.CtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, kPrintfFifoBytes);
    d_.EventCreate(&start_, CU_EVENT_DEFAULT);
    d_.EventCreate(&stop_, CU_EVENT_DEFAULT);
}

void CudaBackend::read_device_info() {
    auto attr = [this](CUdevice_attribute a) {
        int v = 0;
        return d_.DeviceGetAttribute(&v, a, device_) == CUDA_SUCCESS ? v : 0;
    };
    auto u = [](int v) { return uint32_t(std::max(v, 0)); };
    DeviceInfo& i = info_;
    i.backend = "cuda";
    i.caps.launches = true;
    i.caps.gpu = true;
    i.caps.device_buffers = true;
    i.caps.occupancy_api = true;
    i.caps.event_timing = true;
    i.caps.default_repeats = 10;
    i.caps.trace_needs_instrumented_module = true;
    // Copies overlap kernels when the device has a copy engine (every GPU the playground's NVRTC targets has).
    i.caps.concurrent_streams = attr(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT) > 0;
    char name[256] = {};
    if (d_.DeviceGetName(name, int(sizeof(name)) - 1, device_) == CUDA_SUCCESS) i.name = name;
    i.cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    i.cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    i.arch = "sm_" + std::to_string(i.cc_major * 10 + i.cc_minor);
    i.sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    size_t total = 0;
    if (d_.DeviceTotalMem(&total, device_) == CUDA_SUCCESS) i.total_memory = total;
    i.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    i.max_block = {u(attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)), u(attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)),
                   u(attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z))};
    i.max_grid = {u(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)), u(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)),
                  u(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z))};
    i.max_shared_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    i.max_shared_per_block_optin = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    i.max_shared_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    i.regs_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    i.regs_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    i.max_threads_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    i.max_blocks_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    i.warp_size = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    i.l2_bytes = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    int version = 0;
    if (d_.DriverGetVersion(&version) == CUDA_SUCCESS) i.driver_version = "CUDA " + cuda_version_text(version);
}

// Device-to-device copy of 256 MiB timed with events: a copy reads and writes every byte, hence 2x.
void CudaBackend::measure_copy_bandwidth() {
    bandwidth_measured_ = true;
    for (size_t bytes : {size_t(256) << 20, size_t(64) << 20}) {
        CUdeviceptr src = 0, dst = 0;
        if (d_.MemAlloc(&src, bytes) != CUDA_SUCCESS) continue;
        if (d_.MemAlloc(&dst, bytes) != CUDA_SUCCESS) {
            d_.MemFree(src);
            continue;
        }
        float best_ms = 0;
        bool ok = d_.MemsetD8(src, 1, bytes) == CUDA_SUCCESS && d_.MemcpyDtoD(dst, src, bytes) == CUDA_SUCCESS;
        for (int k = 0; ok && k < 5; ++k) {
            float ms = 0;
            ok = d_.EventRecord(start_, nullptr) == CUDA_SUCCESS && d_.MemcpyDtoD(dst, src, bytes) == CUDA_SUCCESS &&
                 d_.EventRecord(stop_, nullptr) == CUDA_SUCCESS && d_.EventSynchronize(stop_) == CUDA_SUCCESS &&
                 d_.EventElapsedTime(&ms, start_, stop_) == CUDA_SUCCESS;
            if (ok && ms > 0 && (best_ms == 0 || ms < best_ms)) best_ms = ms;
        }
        d_.MemFree(src);
        d_.MemFree(dst);
        if (ok && best_ms > 0) info_.copy_bandwidth_gbps = 2.0 * double(bytes) / (double(best_ms) * 1e-3) / 1e9;
        return;
    }
}

InfoResult CudaBackend::info() {
    if (!bind() && !bandwidth_measured_) measure_copy_bandwidth();
    return InfoResult{info_};
}

// ---- errors and recovery --------------------------------------------------------------------------------

std::optional<EngineError> CudaBackend::bind() {
    if (context_lost_)
        return engine_error(ErrorKind::WorkerLost, "context lost", context_lost_reason_,
                            "restart CUDA Playground to use the GPU again");
    d_.CtxSetCurrent(context_);
    return std::nullopt;
}

bool CudaBackend::context_is_broken() { return d_.CtxSynchronize() != CUDA_SUCCESS; }

EngineError CudaBackend::failure(CUresult r, const std::string& subject) {
    const CudaErrorWords words = cuda_error_words(r);
    EngineError e;
    e.name = d_.error_name(r);
    e.message = subject + " " + words.what + " (" + e.name + ").";
    e.hint = words.hint;
    e.kind = cuda_error_kind(r);
    if (is_sticky_cuda_error(r) || context_is_broken()) {
        // The context (and, per CUDA, this whole process) can no longer run anything.
        context_lost_ = true;
        context_lost_reason_ = "the GPU context was lost after " + e.name + " in an earlier request";
        buffers_.clear();
        modules_.clear();
        if (worker_) {
            e.context_was_reset = true;
            e.message += " All buffers were lost; the GPU context was reset.";
        } else {
            e.message += " CUDA cannot continue in this process after such an error: all buffers were lost.";
            e.hint += (e.hint.empty() ? "" : "; ") + std::string("restart CUDA Playground to use the GPU again");
        }
    }
    return e;
}

std::string CudaBackend::buffer_label(BufferId id) const {
    auto it = buffers_.find(id);
    return it == buffers_.end() ? "buffer #" + std::to_string(id) : "buffer `" + it->second.name + "`";
}

// ---- compile --------------------------------------------------------------------------------------------

// The driver's figures are authoritative (and include __launch_bounds__); ptxas's add spills.
void CudaBackend::add_driver_usage(CUfunction fn, ResourceUsage& u) const {
    auto fattr = [&](CUfunction_attribute a, int fallback) {
        int v = 0;
        return d_.FuncGetAttribute(&v, a, fn) == CUDA_SUCCESS ? v : fallback;
    };
    u.registers = fattr(CU_FUNC_ATTRIBUTE_NUM_REGS, u.registers);
    u.static_shared_bytes = fattr(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, u.static_shared_bytes);
    u.local_bytes = std::max(u.local_bytes, fattr(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, u.local_bytes));
    u.constant_bytes = fattr(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, u.constant_bytes);
    u.max_threads_per_block = fattr(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, u.max_threads_per_block);
}

CompileResult CudaBackend::compile(const CompileRequest& request) {
    std::vector<std::byte> image;
    std::string lowered;
    std::map<std::string, std::string> also_lowered;
    CompileRequest wrapped;
    if (request.instrument_trace) {
        auto source = make_trace_wrapper(request.source, request.kernel_name);
        if (!source) {
            CompileResult refused;
            refused.error = to_engine_error(source.error(), "NOT_INSTRUMENTABLE", ErrorKind::Unsupported);
            return refused;
        }
        wrapped = request;
        wrapped.source = std::move(*source);
    }
    // The memory-recording variant (issue 23): the user's code with the recording written into its PTX, as a
    // cubin compiled by nvJitLink and kept on disk (recording_copy.h; one the window prepared in the background
    // loads at once), or as PTX for the driver's JIT when there is no cubin.
    std::vector<PtxMemorySite> memory_sites;
    bool prints = false, asserts = false;  // calls printf / assert: its stdout captured at launch
    CompileResult result;
    if (request.instrument_memory) {
        RecordingCopy copy = compile_recording_copy(request, arch_);
        result = std::move(copy.result);
        if (!result.ok) return result;
        image = std::move(copy.image);
        lowered = std::move(copy.lowered);
        also_lowered = std::move(copy.also_lowered);
        memory_sites = std::move(copy.sites);
        prints = copy.prints;
        asserts = copy.asserts;
    } else {
        result = compile_with_nvrtc(request.instrument_trace ? wrapped : request, arch_, &image, &lowered, &also_lowered);
        prints = image_contains(image, "vprintf") || image_contains(image, "__assertfail");
        asserts = image_contains(image, "__assertfail");
    }
    if (!result.ok || !request.load) return result;
    if (auto e = bind()) {
        result.ok = false;
        result.error = e;
        return result;
    }
    char jit_log[4096] = {};
    // The recording code costs registers; at most 64 a thread keeps a 1024-thread block launchable, as
    // the plain kernel's was (spills go to local memory, which the recording does not see).
    CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_MAX_REGISTERS};
    void* values[] = {jit_log, reinterpret_cast<void*>(uintptr_t(sizeof(jit_log) - 1)),
                      reinterpret_cast<void*>(uintptr_t(64))};
    LoadedModule loaded;
    CUresult r = d_.ModuleLoadDataEx(&loaded.module, image.data(), request.instrument_memory ? 3 : 2, keys, values);
    if (r != CUDA_SUCCESS) {
        result.ok = false;
        result.error = failure(r, "the module of kernel `" + request.kernel_name + "`");
        if (jit_log[0]) result.error->message += std::string(" Driver log: ") + jit_log;
        return result;
    }
    loaded.can_print = prints;
    loaded.can_assert = asserts;
    if (request.instrument_trace && d_.ModuleGetGlobal) {
        size_t bytes = 0;
        if (d_.ModuleGetGlobal(&loaded.trace_records, &bytes, loaded.module, kTraceRecordsSymbol) != CUDA_SUCCESS)
            loaded.trace_records = 0;
    }
    if (request.instrument_memory && d_.ModuleGetGlobal) {
        LoadedModule::MemorySymbols symbols;
        size_t bytes = 0;
        if (d_.ModuleGetGlobal(&symbols.log, &bytes, loaded.module, kMemoryLogSymbol) == CUDA_SUCCESS &&
            d_.ModuleGetGlobal(&symbols.count, &bytes, loaded.module, kMemoryCountSymbol) == CUDA_SUCCESS &&
            d_.ModuleGetGlobal(&symbols.cap, &bytes, loaded.module, kMemoryCapSymbol) == CUDA_SUCCESS &&
            d_.ModuleGetGlobal(&symbols.block_limit, &bytes, loaded.module, kMemoryBlockLimitSymbol) == CUDA_SUCCESS)
            loaded.memory = symbols;
        for (const PtxMemorySite& site : memory_sites) loaded.memory_site_lines.push_back(site.line);
    }
    if (!request.kernel_name.empty()) {
        CUfunction fn = nullptr;
        const std::string symbol = lowered.empty() ? request.kernel_name : lowered;
        r = d_.ModuleGetFunction(&fn, loaded.module, symbol.c_str());
        if (r != CUDA_SUCCESS) {
            d_.ModuleUnload(loaded.module);
            result.ok = false;
            result.error = failure(r, "kernel `" + request.kernel_name + "`");
            return result;
        }
        loaded.functions[request.kernel_name] = fn;
        add_driver_usage(fn, result.usage);
    }
    // The other kernels asked for (compare variants of the same file): loaded from this one module. One that
    // cannot be found is left out of also_usage, and its session compiles it on its own.
    for (auto it = result.also_usage.begin(); it != result.also_usage.end();) {
        const auto symbol = also_lowered.find(it->first);
        CUfunction fn = nullptr;
        if (symbol == also_lowered.end() ||
            d_.ModuleGetFunction(&fn, loaded.module, symbol->second.c_str()) != CUDA_SUCCESS) {
            it = result.also_usage.erase(it);
            continue;
        }
        loaded.functions[it->first] = fn;
        add_driver_usage(fn, it->second);
        ++it;
    }
    result.module = next_module_++;
    modules_[result.module] = std::move(loaded);
    return result;
}

// ---- buffers --------------------------------------------------------------------------------------------

// Guard zones are on unless CUDA_PLAYGROUND_GUARDS=0 (their cost per launch: tests/bench/guard_bench.cpp).
static bool guards_enabled() {
    const char* v = std::getenv("CUDA_PLAYGROUND_GUARDS");
    return !(v && std::string(v) == "0");
}

CUresult CudaBackend::fill_guards(const DeviceBuffer& b) {
    if (!b.guarded) return CUDA_SUCCESS;
    const GuardLayout l = guard_layout(b.bytes);
    const auto front = guard_pattern(GuardSide::Front, l.front);
    const auto back = guard_pattern(GuardSide::Back, l.back);
    CUresult r = d_.MemcpyHtoD(b.base, front.data(), front.size());
    if (r == CUDA_SUCCESS) r = d_.MemcpyHtoD(b.base + l.back_offset(), back.data(), back.size());
    return r;
}

// Each guarded buffer argument's two zones (once per buffer), laid out one after another from offset 0.
std::vector<CudaBackend::GuardRead> CudaBackend::guard_reads_of(const LaunchRequest& request, uint64_t& total) const {
    std::vector<GuardRead> reads;
    total = 0;
    for (const KernelArg& a : request.args) {
        auto it = buffers_.find(a.buffer);
        if (!a.buffer || it == buffers_.end() || !it->second.guarded) continue;
        bool seen = false;
        for (const GuardRead& r : reads) seen = seen || r.buffer == a.buffer;
        if (seen) continue;
        const GuardLayout l = guard_layout(it->second.bytes);
        reads.push_back({a.buffer, GuardSide::Back, total, l.back});
        total += l.back;
        reads.push_back({a.buffer, GuardSide::Front, total, l.front});
        total += l.front;
    }
    return reads;
}

bool CudaBackend::queue_guard_reads(const LaunchRequest& request, std::vector<GuardRead>& reads) {
    reads.clear();
    if (!d_.MemcpyDtoHAsync || !d_.MemAllocHost || !d_.MemFreeHost) return false;
    uint64_t total = 0;
    reads = guard_reads_of(request, total);
    if (reads.empty()) return true;
    if (total > guard_staging_bytes_) {
        if (guard_staging_) d_.MemFreeHost(guard_staging_);
        guard_staging_ = nullptr;
        guard_staging_bytes_ = 0;
        if (d_.MemAllocHost(&guard_staging_, total) != CUDA_SUCCESS) {
            guard_staging_ = nullptr;
            reads.clear();
            return false;
        }
        guard_staging_bytes_ = total;
    }
    auto* staging = static_cast<std::byte*>(guard_staging_);
    for (const GuardRead& r : reads) {
        const DeviceBuffer& b = buffers_.at(r.buffer);
        const CUdeviceptr at = r.side == GuardSide::Front ? b.base : b.base + guard_layout(b.bytes).back_offset();
        if (d_.MemcpyDtoHAsync(staging + r.at, at, r.bytes, nullptr) != CUDA_SUCCESS) {
            reads.clear();  // read them the slow way after the synchronise
            return false;
        }
    }
    return true;
}

// After a launch: each buffer argument's zones (queued behind the launch, or read here) compared with their
// pattern. A violation is reported (the first one found) and the zones are restored so that the next launch
// starts clean.
std::optional<EngineError> CudaBackend::check_guards(const LaunchRequest& request, const std::vector<GuardRead>& queued) {
    std::vector<GuardRead> reads = queued;
    std::vector<std::byte> read_here;
    if (reads.empty()) {  // nothing queued: read each zone now, synchronously
        uint64_t total = 0;
        reads = guard_reads_of(request, total);
        read_here.resize(total);
        for (const GuardRead& r : reads) {
            const DeviceBuffer& b = buffers_.at(r.buffer);
            const CUdeviceptr at = r.side == GuardSide::Front ? b.base : b.base + guard_layout(b.bytes).back_offset();
            if (CUresult e = d_.MemcpyDtoH(read_here.data() + r.at, at, r.bytes); e != CUDA_SUCCESS)
                return failure(e, "checking guard zones");
        }
    }
    const std::byte* zones = read_here.empty() ? static_cast<const std::byte*>(guard_staging_) : read_here.data();
    std::optional<EngineError> found;
    std::vector<BufferId> violated;
    for (const GuardRead& r : reads) {
        const DeviceBuffer& b = buffers_.at(r.buffer);
        auto v = check_guard(r.side, zones + r.at, r.bytes, b.bytes, b.element_bytes);
        if (!v) continue;
        if (std::find(violated.begin(), violated.end(), r.buffer) == violated.end()) violated.push_back(r.buffer);
        if (!found)
            found = engine_error(ErrorKind::OutOfBounds, "out of bounds",
                                 describe_violation(*v, b.name, b.bytes, b.element_bytes) + ", in kernel `" +
                                     request.kernel_name +
                                     "` (found in the guard zone around the buffer; the "
                                     "outputs may be wrong)",
                                 "check the index against the size (e.g. `if (i < n)`) before each access; run "
                                 "with --sanitize memcheck for the thread, block and line");
    }
    for (BufferId id : violated)
        if (fill_guards(buffers_.at(id)) != CUDA_SUCCESS) break;
    return found;
}

AllocateResult CudaBackend::allocate(const AllocateRequest& request) {
    AllocateResult out;
    if ((out.error = bind())) return out;
    DeviceBuffer b;
    b.bytes = request.bytes;
    b.name = request.name;
    b.element_bytes = std::max<uint32_t>(request.element_bytes, 1);
    b.guarded = guards_enabled();
    const GuardLayout layout = guard_layout(request.bytes);
    const uint64_t total = b.guarded ? layout.total() : std::max<uint64_t>(request.bytes, 1);
    // Refuse before asking for memory the GPU does not have (the driver's answer would come after the fact,
    // and a near-full GPU also starves the display).
    size_t free_now = 0, total_now = 0;
    if (d_.MemGetInfo(&free_now, &total_now) == CUDA_SUCCESS && total > free_now) {
        out.error =
            engine_error(ErrorKind::OutOfMemory, "CUDA_ERROR_OUT_OF_MEMORY",
                         "buffer `" + request.name + "` needs " + mib(request.bytes) + " of GPU memory but only " +
                             mib(free_now) + " is free (of " + mib(total_now) + ").",
                         "use a smaller size (e.g. a smaller n, or a smaller image)");
        return out;
    }
    const auto start = std::chrono::steady_clock::now();
    // cuMemAlloc refuses 0 bytes; an empty buffer still gets a valid (1-byte) address.
    CUresult r = d_.MemAlloc(&b.base, total);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
        size_t free_bytes = 0, total_bytes = 0;
        d_.MemGetInfo(&free_bytes, &total_bytes);
        out.error = engine_error(ErrorKind::OutOfMemory, d_.error_name(r),
                                 "not enough GPU memory for buffer `" + request.name + "`: " + mib(request.bytes) +
                                     " requested, " + mib(free_bytes) + " free of " + mib(total_bytes) + ".",
                                 "use a smaller problem size");
        return out;
    }
    b.ptr = b.guarded ? b.base + layout.front : b.base;
    if (r == CUDA_SUCCESS) r = d_.MemsetD8(b.ptr, 0, std::max<uint64_t>(request.bytes, 1));
    if (r == CUDA_SUCCESS) r = fill_guards(b);
    if (r == CUDA_SUCCESS) r = d_.CtxSynchronize();
    if (r != CUDA_SUCCESS) {
        if (b.base) d_.MemFree(b.base);
        out.error = failure(r, "allocating buffer `" + request.name + "`");
        return out;
    }
    out.elapsed_ms = ms_since(start);  // cuMemAlloc + the clearing memset, which waits for the device
    out.buffer = next_buffer_++;
    out.device_address = b.ptr;
    CUipcMemHandle ipc;
    if (d_.IpcGetMemHandle && d_.IpcGetMemHandle(&ipc, b.base) == CUDA_SUCCESS) {
        const auto* raw = reinterpret_cast<const uint8_t*>(ipc.reserved);
        out.ipc_handle.assign(raw, raw + sizeof(ipc.reserved));
        out.ipc_offset = b.ptr - b.base;  // the handle opens the allocation; the buffer starts after the guard
    }
    buffers_[out.buffer] = std::move(b);
    return out;
}

UploadResult CudaBackend::upload(const UploadRequest& request) {
    UploadResult out;
    if ((out.error = bind())) return out;
    auto it = buffers_.find(request.buffer);
    if (it == buffers_.end()) {
        out.error = engine_error(ErrorKind::Internal, "unknown buffer",
                                 buffer_label(request.buffer) +
                                     " does not exist (it was released, or lost "
                                     "when the context was reset)",
                                 "allocate it again");
        return out;
    }
    const uint64_t bytes = it->second.bytes;
    if (request.repeat && (request.data.empty() || request.data.size() > 16 || bytes % request.data.size() != 0)) {
        out.error = engine_error(ErrorKind::Internal, "bad pattern",
                                 "a " + std::to_string(request.data.size()) + "-byte fill pattern does not divide " +
                                     buffer_label(request.buffer) + " of " + std::to_string(bytes) + " bytes");
        return out;
    }
    if (!request.repeat && (request.offset > bytes || request.data.size() > bytes - request.offset)) {
        out.error = engine_error(ErrorKind::Internal, "too much data",
                                 std::to_string(request.data.size()) + " bytes at offset " +
                                     std::to_string(request.offset) + " do not fit in " + buffer_label(request.buffer) +
                                     " of " + std::to_string(bytes) + " bytes");
        return out;
    }
    if (request.data.empty() || bytes == 0) return out;
    // Pinned: the data is first put in page-locked memory, untimed, as if the program had kept it there.
    std::optional<PinnedStaging> staging;
    if (request.pinned && !request.repeat) {
        staging.emplace(d_, request.data.size());
        if (!staging->data) {
            out.error = no_pinned_memory(request.data.size());
            return out;
        }
        std::memcpy(staging->data, request.data.data(), request.data.size());
    }
    // Host clock around the copy: cuMemcpyHtoD returns once the data is on the device, and the memsets are
    // followed by a synchronize so that they are counted whole.
    const auto start = std::chrono::steady_clock::now();
    CUresult r = CUDA_SUCCESS;
    if (request.repeat) {
        // Patterns of one element: the driver's memset for 1/2/4-byte patterns, else an expanded copy.
        const auto& p = request.data;
        uint32_t word = 0;
        std::memcpy(&word, p.data(), std::min<size_t>(p.size(), 4));
        if (p.size() == 1) r = d_.MemsetD8(it->second.ptr, uint8_t(word), bytes);
        else if (p.size() == 2) r = d_.MemsetD16(it->second.ptr, uint16_t(word), bytes / 2);
        else if (p.size() == 4) r = d_.MemsetD32(it->second.ptr, word, bytes / 4);
        else {
            std::vector<std::byte> expanded(bytes);
            fill_with_pattern(expanded.data(), bytes, p);
            r = d_.MemcpyHtoD(it->second.ptr, expanded.data(), bytes);
        }
    } else {
        r = d_.MemcpyHtoD(it->second.ptr + request.offset, staging ? staging->data : request.data.data(),
                          request.data.size());
    }
    // A reset by memset is queued on the null stream, ahead of the next launch, without waiting for it: on a
    // GPU that also draws the window, each synchronise can wait for the GPU to switch contexts, and a reset
    // has no result to wait for. A copy of data is waited for (its time is the upload's time).
    const bool queued = request.repeat && request.data.size() <= 4 && request.data.size() != 3;
    if (r == CUDA_SUCCESS && !queued) r = d_.CtxSynchronize();
    out.elapsed_ms = ms_since(start);
    if (r != CUDA_SUCCESS) out.error = failure(r, "uploading to " + buffer_label(request.buffer));
    return out;
}

ReadBackResult CudaBackend::read_back(const ReadBackRequest& request) {
    ReadBackResult out;
    if ((out.error = bind())) return out;
    auto it = buffers_.find(request.buffer);
    if (it == buffers_.end()) {
        out.error = engine_error(ErrorKind::Internal, "unknown buffer",
                                 buffer_label(request.buffer) +
                                     " does not exist (it was released, or lost "
                                     "when the context was reset)",
                                 "run the kernel again");
        return out;
    }
    out.data.resize(it->second.bytes);
    if (out.data.empty()) return out;
    std::optional<PinnedStaging> staging;
    if (request.pinned) {
        staging.emplace(d_, out.data.size());
        if (!staging->data) {
            out.data.clear();
            out.error = no_pinned_memory(it->second.bytes);
            return out;
        }
    }
    const auto start = std::chrono::steady_clock::now();
    const CUresult r = d_.MemcpyDtoH(staging ? staging->data : out.data.data(), it->second.ptr, out.data.size());
    out.elapsed_ms = ms_since(start);
    if (r == CUDA_SUCCESS && staging) std::memcpy(out.data.data(), staging->data, out.data.size());
    if (r != CUDA_SUCCESS) {
        out.data.clear();
        out.error = failure(r, "reading back " + buffer_label(request.buffer));
    }
    return out;
}

ReleaseResult CudaBackend::release(const ReleaseRequest& request) {
    if (bind()) return {};
    for (BufferId id : request.buffers) {
        auto it = buffers_.find(id);
        if (it == buffers_.end()) continue;
        d_.MemFree(it->second.base);
        buffers_.erase(it);
    }
    for (ModuleId id : request.modules) {
        auto it = modules_.find(id);
        if (it == modules_.end()) continue;
        d_.ModuleUnload(it->second.module);
        modules_.erase(it);
    }
    return {};
}

}  // namespace cp
