// The products of a run's stages: immutable values, each made by one stage (session_run.cpp) from the products
// before it, and each carrying what it was made from and whether it was made again or reused (its StageRun
// entries, with the reason). The RunReport is assembled from them once the run ends (session_run.cpp's
// assemble_report), in the stages' order; nothing else writes a stage's figures into a report.
//
//   the file + the choices --resolve--> ResolvedRun (resolved_run.h)
//     --compile--> CompiledKernel --validate--> the launch checks (RunReport::launch_issues)
//     --measure--> Measured (coverage, trace, memory recording: launches of their own, before the buffers are set)
//     --prepare--> PreparedBuffers --launch--> Launched --read back--> ReadBack
//     --streams--> Streamed (a `streams:` file: the launch again in chunks; its outputs are the ones checked)
//     --check--> Checked (now, or later on the same products: KernelSession::check)
//   A `devices:` file's parts (session_devices.cpp) follow Measured, one part per device.
#pragma once

#include "core/engine/engine_api.h"
#include "core/session/launcher.h"
#include "core/session/run_report.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cp {

// compile: the kernel's module (and, with `step:` lines, each step's), from the session's keyed compile cache.
struct CompiledKernel {
    const CompileResult* module = nullptr;      // the session's ModuleCache owns it; valid until the next compile
    std::vector<const CompileResult*> steps;    // a file with steps: one per step, in order
    std::vector<StageRun> runs;                 // "compile" (and "compile step NAME"): made again or reused, and why
    std::vector<Diagnostic> diagnostics;        // the compiler's (and a failing step's errors)
    ResourceUsage usage;                        // the kernel's registers, shared and local memory
    double compile_ms = 0;                      // the compiler's own time, over the modules compiled for this run
    bool cache_hit = false;
};

// measure: what launches of their own measured before the run's buffers were set (session_insight.cpp).
struct Measured {
    std::vector<CoverageMap> coverage;  // per out buffer, when measured
    std::optional<LaunchTrace> trace;
    std::optional<MemoryRecording> memory;
    std::vector<StageRun> runs;         // their compiles ("compile trace", "compile memory", "compile counting")
};

// prepare: the run's buffers on the device with their initial contents; the device copies are the session's.
struct PreparedBuffers {
    struct Buffer {
        BufferId id = 0;
        uint64_t device_address = 0;
        std::vector<uint8_t> ipc_handle;  // a worker process's buffer, for interop
        uint64_t ipc_offset = 0;
    };
    std::map<std::string, Buffer> buffers;
    TransferTimes transfers;      // the allocations and uploads this preparation made (pinned: asked and possible)
    std::vector<StageRun> runs;   // per buffer ("upload NAME"): sent or kept, and why
};

// launch: the timed launch (or, with `step:` lines, every step's), through the session's Launcher.
struct Launched {
    std::optional<StageRun> run;        // "launch": always ran, and what changed since the last one (absent: a step
                                        // failed, whose error names it)
    LaunchOutcome outcome;              // timing, phases, printf; the failure with its kind
    std::vector<StepReport> steps;      // a file with steps: each, in order (as far as they got)
    double bandwidth_gbps = 0, bandwidth_fraction = 0;
    bool ok() const { return !outcome.failure; }
};

// read back: the outputs on the host, or handed over where they are, or as previews.
struct ReadBack {
    std::optional<StageRun> run;  // "read back" (absent when the run read nothing back)
    std::map<std::string, HostBuffer> outputs;
    std::map<std::string, RunReport::InPlaceOutput> in_place;
    std::map<std::string, RunReport::PreviewOutput> previews;
    double download_ms = 0;
    uint64_t downloads = 0, download_bytes = 0;
};

// streams: a `streams:` file's launch again in chunks on streams; its outputs replace ReadBack's for the check.
struct Streamed {
    StageRun run;
    std::optional<StreamsReport> report;        // absent when the streamed run failed
    std::map<std::string, HostBuffer> outputs;  // the streamed outputs (the others stay as read back)
    int error_line = 0;                         // the line a failed chunk's launch stopped on
};

// check: the outputs against the file's CPU reference (its expected outputs reused while what they depend on is
// unchanged). Made during the run, or after it on the same products (KernelSession::check, a deferred check).
struct Checked {
    std::optional<bool> verified;       // nullopt: the reference failed
    double reference_ms = 0;            // the reference's own run (0 when its expected outputs were reused)
    double max_abs_error = 0;
    uint64_t mismatches = 0, mismatched_elements = 0;
    std::string mismatch_detail;
    std::vector<ErrorMap> error_maps;   // per output compared
    std::vector<Diagnostic> diagnostics;  // the reference's
    std::vector<StageRun> runs;         // "reference" (ran or reused), "check"
    std::optional<Error> error;         // the reference itself failed
    double check_ms = 0;
    bool recorded = false;              // judged by the file's `result` lines (recorded outputs)
    std::string not_checked;            // why it could not be judged although asked (params off the record)
    NotCheckedWhy not_checked_why = NotCheckedWhy::None;
    // A buggy-on-purpose lesson's judgement once the report holds this check (set by KernelSession::check).
    std::string outcome;
    std::optional<bool> as_expected;
};

// A stage's answer: its product, as far as the stage got (a failed compile still has its diagnostics, a failed
// upload the entries of the buffers sent before it), and why it ends the run, when it does.
template <class Product>
struct Made {
    Product product;
    std::optional<Error> error;
};

// Into `report`, each product's part (the assembly of a run's report, and a deferred check's arrival).
void add_to_report(const CompiledKernel& p, RunReport& report);
void add_to_report(const Measured& p, RunReport& report);
void add_to_report(const PreparedBuffers& p, RunReport& report);
void add_to_report(const Launched& p, RunReport& report);
void add_to_report(ReadBack&& p, RunReport& report);
void add_to_report(Streamed&& p, RunReport& report);
void add_to_report(const Checked& p, RunReport& report);

}  // namespace cp
