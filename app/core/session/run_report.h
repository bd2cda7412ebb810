// What one run of a kernel session was and what came of it: the resolved run (every value the launch used,
// computed once by KernelSession::resolve) and the report (compile, launch, timing, outputs, check). The
// window and the command line read these; neither recomputes what is in them.
#pragma once

#include "core/data/host_buffer.h"
#include "core/data/image_io.h"
#include "core/engine/engine_api.h"
#include "core/engine/launch_validation.h"
#include "core/session/run_choices.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cp {

// One view of an output as the run shows it: the file's `view` line (or the default plot) with its size.
struct ResolvedView {
    ViewSpec spec;
    int width = 0, height = 0;  // image views: the picture; plots and tables: 0
    std::string problem;        // why it cannot be shown (size expression, too large...); empty when fine
};

// An image an image-initialised buffer was filled from.
struct ResolvedImage {
    std::string path;                   // the file, as found (next to the kernel, in assets/, or as given)
    std::shared_ptr<const Image> image;  // decoded once and shared (the window shows it beside the output)
};

// Every value needed for one launch, computed from the metadata and the user's choices.
struct ResolvedRun {
    std::map<std::string, double> params;           // all parameters, derived ones included
    std::map<std::string, uint64_t> buffer_counts;  // elements per buffer
    Dim3 grid, block;
    uint32_t dynamic_shared_bytes = 0;
    std::vector<uint64_t> problem;
    uint64_t traffic_bytes = 0;                     // bytes one launch reads + writes
    std::vector<ResolvedView> views;
    std::map<std::string, ResolvedImage> images;    // by buffer name
};

enum class RunStage { None, Metadata, Resolve, Compile, Validate, Prepare, Launch, Verify };
const char* run_stage_name(RunStage s);

struct RunReport {
    std::string kernel;   // kernel function name
    std::string title;
    std::string backend;  // the backend's registry name
    std::string device;
    std::optional<ResolvedRun> resolved;    // what the run used (set once resolving succeeded)
    std::vector<InputProblem> input_problems;  // choices the session refused (the run stopped at Resolve)

    // Compilation
    bool compiled = false;                // the compile stage ran (a launch refused by the device's limits stops before)
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

}  // namespace cp
