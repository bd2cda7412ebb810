// The CUDA backend: NVRTC cubins run through the driver API on the device's primary context, with
// device printf captured per launch. Sticky errors (illegal address, device assert...) are reported in
// plain words; CUDA cannot recover from them inside the process (cuda.h: "the process must be terminated
// and relaunched"; resetting the primary context does not help), so after one this backend is lost.
// make_cuda_backend() therefore runs it in a worker process that is replaced instead (cuda_worker.h).
#pragma once

#include "core/engine/backend.h"
#include "core/cuda/cuda_driver.h"
#include "core/cuda/guard_zones.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cp {

struct LaunchPhaseClock;  // cuda_launch.cpp: where launch()'s time goes, as LaunchResult::phases

// What a plain launch and a streamed run share (cuda_launch.cpp, cuda_streams.cpp): the most device printf
// output kept per request, and a launch refused before any thread ran.
inline constexpr size_t kMaxPrintfBytes = 4u << 20;
inline EngineError launch_refused(std::string message, std::string hint = {}) {
    return engine_error(ErrorKind::LaunchRefused, "launch refused", std::move(message), std::move(hint));
}

// A streamed run's chunks, each checked (its stream, its copies within their buffers, its launch) and its
// arguments marshalled, before anything is queued (cuda_streams.cpp).
struct CudaStreamsPlan {
    struct Chunk {
        LaunchRequest launch;
        std::vector<std::vector<std::byte>> storage;
        std::vector<void*> params;
        std::vector<CUdeviceptr> h2d_to, d2h_from;  // each copy's place on the device
    };
    std::vector<Chunk> chunks;
    LaunchRequest all_args;  // every chunk's arguments, for the guard zone check afterwards
    uint64_t in_bytes = 0, out_bytes = 0;
};

class CudaBackend final : public Backend {
public:
    const std::string& arch() const { return arch_; }  // what NVRTC compiles for
    // Initialises the driver and retains the primary context of device `ordinal` (cuDeviceGet); Error (plain
    // words, ending with "use --backend cpu") when there is no usable device, or none with that ordinal.
    static Result<std::unique_ptr<CudaBackend>> create(const CudaDriver& driver, int ordinal = 0);
    ~CudaBackend() override;

    // In a worker process: ids start above `id_base` (so ids of a replaced worker never come back), and
    // sticky errors promise the fresh context that the next worker will have.
    void run_as_worker(uint64_t id_base);
    // A sticky error happened: every further request fails.
    bool lost() const { return context_lost_; }

    InfoResult info() override;
    CompileResult compile(const CompileRequest& request) override;
    AllocateResult allocate(const AllocateRequest& request) override;
    UploadResult upload(const UploadRequest& request) override;
    LaunchResult launch(const LaunchRequest& request) override;
    ReadBackResult read_back(const ReadBackRequest& request) override;
    ReleaseResult release(const ReleaseRequest& request) override;
    OccupancyResult occupancy(const OccupancyRequest& request) override;
    StreamsResult streams(const StreamsRequest& request) override;  // cuda_streams.cpp

private:
    // What every launch of a function asks the driver, asked once (cuda_launch.cpp: function_facts, param_sizes).
    struct FunctionFacts {
        bool attributes_known = false;
        int max_threads = 0;              // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
        int static_shared = 0;            // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
        std::vector<size_t> param_sizes;  // cuFuncGetParamInfo, parameter 0 on, as far as it was asked
        bool params_complete = false;     // the driver said there is no parameter after param_sizes
    };
    struct LoadedModule {
        CUmodule module = nullptr;
        std::map<std::string, CUfunction> functions;  // by the name requests use
        // Per function of this module: it goes with the module (released, or the context lost), so a function
        // handle that a later module reuses never finds another function's facts.
        std::map<CUfunction, FunctionFacts> facts;
        bool can_print = false;                        // calls printf or assert: capture stdout on launch
        bool can_assert = false;
        CUdeviceptr trace_records = 0;  // the instrumented variant's record pointer (trace_wrapper.h); 0: none
        // The memory-recording variant (ptx_memory.h): its __device__ variables, and each site's source line.
        struct MemorySymbols {
            CUdeviceptr log = 0, count = 0, cap = 0, block_limit = 0;
        };
        std::optional<MemorySymbols> memory;
        std::vector<int> memory_site_lines;  // site s (1-based) is on line memory_site_lines[s - 1]
    };
    struct DeviceBuffer {
        CUdeviceptr ptr = 0;   // the buffer the kernel sees
        CUdeviceptr base = 0;  // the allocation: ptr - front guard zone (core/cuda/guard_zones.h), or ptr
        uint64_t bytes = 0;
        std::string name;
        uint32_t element_bytes = 1;
        bool guarded = false;
    };
    CUresult fill_guards(const DeviceBuffer& b);
    // Guard zones after a launch, in two halves so that the launch's one synchronise also waits for them:
    // queue_guard_reads puts a copy of each zone of the launch's buffers into pinned staging behind the launch
    // (false: no pinned memory or no async copies here), check_guards compares them once the context is idle
    // (reading them itself, synchronously, when nothing was queued).
    struct GuardRead {
        BufferId buffer = 0;
        GuardSide side = GuardSide::Back;
        uint64_t at = 0, bytes = 0;  // where in guard_staging_
    };
    std::vector<GuardRead> guard_reads_of(const LaunchRequest& request, uint64_t& total) const;
    bool queue_guard_reads(const LaunchRequest& request, std::vector<GuardRead>& reads);
    std::optional<EngineError> check_guards(const LaunchRequest& request, const std::vector<GuardRead>& queued);

    CudaBackend(const CudaDriver& driver, CUdevice device, CUcontext context, int ordinal, int count);
    void read_device_info();
    void measure_copy_bandwidth();
    void prepare_context();  // limits and timing events on a fresh context

    // Makes our context current on the calling thread; an error when it was lost for good.
    std::optional<EngineError> bind();
    // An EngineError for a failed driver call; marks the backend lost when the error is sticky.
    EngineError failure(CUresult r, const std::string& subject);
    bool context_is_broken();

    CUfunction find_function(LoadedModule& module, const std::string& kernel_name);
    void add_driver_usage(CUfunction fn, ResourceUsage& usage) const;
    // The kernel `name` of module `module`, or null with `error` saying what is missing (for `subject`).
    CUfunction kernel_function(ModuleId module, const std::string& name, const std::string& subject,
                               std::optional<EngineError>& error);
    const FunctionFacts& function_facts(LoadedModule& module, CUfunction fn);
    // The sizes of the first `count` parameters of `fn` (fewer when it has fewer), asked only once per function.
    std::vector<size_t> param_sizes(LoadedModule& module, CUfunction fn, size_t count);
    std::optional<EngineError> check_launch(LoadedModule& module, CUfunction fn, const LaunchRequest& request,
                                            const std::string& subject);
    std::optional<EngineError> marshal_args(LoadedModule& module, CUfunction fn, const LaunchRequest& request,
                                            std::vector<std::vector<std::byte>>& storage, std::vector<void*>& params);
    LaunchResult run_launch(const LaunchRequest& request, LaunchPhaseClock& clock);  // launch() less its clock
    // A streamed run checked and planned whole, before anything is queued (cuda_streams.cpp).
    std::optional<EngineError> plan_streams(const StreamsRequest& request, const std::string& subject, CUfunction fn,
                                            LoadedModule& loaded, CudaStreamsPlan& plan);
    struct Snapshot {
        CUdeviceptr buffer = 0, copy = 0;
        uint64_t bytes = 0;
    };
    bool snapshot_args(const LaunchRequest& request, std::vector<Snapshot>& out);
    CUresult flush_l2();
    // A recording launch (LaunchRequest::record_memory, cuda_memory.cpp): the log on the device before it, the
    // figures after. `pass_needed` after each pass: whether blocks must be dropped and the launch run again.
    struct MemoryPass {
        CUdeviceptr log = 0;
        uint64_t cap = 0, block_limit = 0, blocks = 0, count = 0;
        int passes = 0;
        std::vector<WarpId> warps;  // LaunchRequest::memory_warps: kept lane by lane
    };
    std::optional<EngineError> begin_memory_recording(const LoadedModule& module, const LaunchRequest& request,
                                                      MemoryPass& pass);
    CUresult memory_pass_needed(const LoadedModule& module, MemoryPass& pass, bool can_run_again, bool& again);
    CUresult start_memory_pass(const LoadedModule& module, const MemoryPass& pass);  // log cleared, count 0, limit
    CUresult end_memory_recording(const LoadedModule& module, MemoryPass& pass, double ms, LaunchResult& out);
    void abandon_memory_recording(const LoadedModule& module, MemoryPass& pass);  // after a failed launch
    uint64_t reserved_shared_bytes() const;  // the system's part at the start of each block's shared window
    std::string buffer_label(BufferId id) const;

    const CudaDriver& d_;
    CUdevice device_;
    CUcontext context_;
    bool context_lost_ = false;  // after a sticky error: nothing works any more
    std::string context_lost_reason_;
    bool worker_ = false;
    std::string arch_;           // what NVRTC compiles for: "sm_90", or "compute_NN" for the driver to JIT
    DeviceInfo info_;
    bool bandwidth_measured_ = false;

    CUevent start_ = nullptr, stop_ = nullptr;
    CUdeviceptr l2_flush_buffer_ = 0;
    void* guard_staging_ = nullptr;  // pinned host memory the guard zones are copied into (grows, kept)
    size_t guard_staging_bytes_ = 0;
    size_t l2_flush_bytes_ = 0;
    std::map<ModuleId, LoadedModule> modules_;
    std::map<BufferId, DeviceBuffer> buffers_;
    ModuleId next_module_ = 1;
    BufferId next_buffer_ = 1;  // never reused, so ids from before a reset cannot alias new buffers
};

}  // namespace cp
