// A kernel session: one kernel file plus the user's choices (parameters, launch, images), driven through
// the engine step by step: resolve -> compile -> validate -> prepare buffers -> launch -> read back -> verify.
// The command line runs it once; the window keeps one alive and re-runs it when something changes.
#pragma once

#include "core/engine/engine.h"
#include "core/data/image_io.h"
#include "core/kernel_file/kernel_file.h"
#include "core/engine/launch_validation.h"
#include "core/session/references.h"

#include <functional>
#include <map>
#include <optional>
#include <string>

namespace cp {

// Every value needed for one launch, computed from the metadata and the user's choices.
struct ResolvedRun {
    std::map<std::string, double> params;           // all parameters, derived ones included
    std::map<std::string, uint64_t> buffer_counts;  // elements per buffer
    Dim3 grid, block;
    uint32_t dynamic_shared_bytes = 0;
    std::vector<uint64_t> problem;
    uint64_t traffic_bytes = 0;                     // bytes one launch reads + writes
};

enum class RunStage { None, Metadata, Resolve, Compile, Validate, Prepare, Launch, Verify };
const char* run_stage_name(RunStage s);

struct RunReport {
    std::string kernel;   // kernel function name
    std::string title;
    std::string backend;  // "cuda" / "cpu"
    std::string device;
    Dim3 grid, block;
    uint32_t dynamic_shared_bytes = 0;
    std::map<std::string, double> params;

    // Compilation
    std::vector<Diagnostic> diagnostics;  // metadata + compiler
    ResourceUsage usage;
    bool cache_hit = false;
    double compile_ms = 0;

    std::vector<LaunchIssue> launch_issues;  // warnings (and the refusal, if any)

    // Launch
    bool launched = false;
    TimingStats timing;
    double bandwidth_gbps = 0;       // traffic_bytes / median time
    double bandwidth_fraction = 0;   // of the device's measured copy bandwidth (0 if unknown)
    std::string printf_output;

    // Verification: nullopt = not checked (no reference, or not launched)
    std::optional<bool> verified;
    double max_abs_error = 0;
    uint64_t mismatches = 0;
    std::string mismatch_detail;

    std::map<std::string, HostBuffer> outputs;         // out/inout buffers read back (when asked)
    std::map<std::string, uint64_t> device_addresses;  // CUDA device pointers (interop, same process)
    std::map<std::string, std::vector<uint8_t>> ipc_handles;  // CUDA IPC handles (interop, worker process)

    RunStage failed_stage = RunStage::None;
    std::optional<Error> error;  // the user-level failure: what went wrong + how to fix it
    bool ok() const { return !error.has_value(); }
};

struct RunOptions {
    TimingOptions timing;
    bool read_back = true;  // read out/inout buffers into RunReport::outputs
    bool verify = true;     // compare with the CPU reference (needs read_back)
    // Called just before the launch with the report so far (launch configuration, compile, warnings), so
    // what is about to run can be shown before it runs (and perhaps hangs until the watchdog stops it).
    std::function<void(const RunReport&)> before_launch;
};

class KernelSession {
public:
    explicit KernelSession(Engine& engine);
    ~KernelSession();
    KernelSession(const KernelSession&) = delete;
    KernelSession& operator=(const KernelSession&) = delete;

    const DeviceInfo& device() const { return device_; }
    const KernelFile& kernel() const { return kernel_; }

    // Replaces the kernel (e.g. after an edit). Parameter overrides whose names still exist are kept.
    void set_kernel(KernelFile file);

    // "--set name=value": unknown names, non-numbers, derived params and out-of-range values are errors.
    Result<bool> set_param(const std::string& name, const std::string& value);
    Result<bool> set_param_value(const std::string& name, double value);
    void clear_param_overrides() { param_overrides_.clear(); }
    const std::map<std::string, double>& param_overrides() const { return param_overrides_; }

    void set_grid_override(std::optional<Dim3> grid) { grid_override_ = grid; }
    void set_block_override(std::optional<Dim3> block) { block_override_ = block; }
    // Replaces the image an image-initialised buffer loads (path as the user gave it).
    void set_image_override(const std::string& buffer, std::string path);

    // Evaluates parameters, sizes and the launch configuration (loads images on first use).
    Result<ResolvedRun> resolve();

    // Compiles the current source unless the last compile was of the same text.
    const CompileResult& compile();

    // The block size that maximises occupancy, from the engine's occupancy API, for the current kernel with
    // its current dynamic shared memory. Compiles first if needed; an Error when the kernel cannot be
    // resolved or compiled, or the backend cannot answer (e.g. it has no occupancy API).
    Result<OccupancyResult> suggest_block();

    // Everything, in order; never throws; the report says where it stopped and why.
    RunReport run(const RunOptions& options = {});

private:
    std::filesystem::path image_path(const BufferSpec& buffer) const;
    Result<const Image*> image_for(const BufferSpec& buffer);
    Result<bool> prepare_buffers(const ResolvedRun& resolved);
    void release_buffers();

    Engine& engine_;
    DeviceInfo device_;
    KernelFile kernel_;
    std::map<std::string, double> param_overrides_;
    std::optional<Dim3> grid_override_, block_override_;
    std::map<std::string, std::string> image_overrides_;
    std::map<std::string, Image> image_cache_;  // path -> image

    std::string compiled_source_;
    CompileResult compile_result_;

    struct DeviceBuffer {
        BufferId id = 0;
        uint64_t bytes = 0;
        uint64_t device_address = 0;
        std::vector<uint8_t> ipc_handle;
        std::string content_key;  // the initial contents the device copy still holds; empty: unknown
    };
    std::map<std::string, DeviceBuffer> buffers_;

    // Each buffer's initial contents on the host (for uploads and the reference), refilled only when what
    // determines them changes: live re-runs of a 4K filter must not re-decode and re-send the photo.
    struct HostInput {
        std::string key;
        HostBuffer host;
    };
    std::map<std::string, HostInput> host_inputs_;
};

}  // namespace cp
