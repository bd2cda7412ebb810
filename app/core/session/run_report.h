// What one run of a kernel session was and what came of it: the resolved run (every value the launch used,
// computed once by KernelSession::resolve) and the report (compile, launch, timing, outputs, check). The
// window and the command line read these; neither recomputes what is in them.
#pragma once

#include "core/data/data_file.h"
#include "core/data/host_buffer.h"
#include "core/data/image_io.h"
#include "core/engine/engine_api.h"
#include "core/engine/launch_validation.h"
#include "core/session/run_choices.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
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

// One step of a file's sequence (`step:` lines), as resolved: its kernel and launch.
struct ResolvedStep {
    int index = 0;       // 1-based, in the file's order
    std::string kernel;  // a name or an instantiation
    int line = 0;        // its `step:` line
    Dim3 grid, block;
    uint32_t dynamic_shared_bytes = 0;
    uint64_t repeat = 1;  // launches in a row
    bool own_block = false, own_grid = false;  // set on its line (else the file's, or the user's choice)
};
std::string step_label(const ResolvedStep& s);  // "step 2 (`reduce_final`)"

// A run cut into parts along a size parameter (chunk_plan.h). One buffer in one part: a byte range of it, or the whole buffer (an `in` buffer of another size).
struct ChunkBuffer {
    std::string name;
    bool whole = false;        // another size than the split parameter: passed whole (only `in` buffers)
    uint64_t byte_offset = 0;  // where the part's elements start in the buffer
    uint64_t bytes = 0;        // the part's bytes (whole: the buffer's)
    Direction direction = Direction::In;
};

// One part: elements [begin, end) of the split parameter's range.
struct ChunkPart {
    int index = 0;  // 0-based
    uint64_t begin = 0, end = 0;
    uint64_t length() const { return end - begin; }
    std::vector<ChunkBuffer> buffers;      // in the file's order
    std::map<std::string, double> params;  // the run's parameters with the split one set to length()
    Dim3 grid;                             // the file's `grid:` evaluated with those parameters
};

struct ChunkPlan {
    std::string param;   // the split parameter
    uint64_t total = 0;  // its value in the run
    std::vector<ChunkPart> parts;
};

// `streams: S over PARAM chunks=C` as resolved: the counts evaluated and checked against PARAM's value, and
// its chunks planned (plan_chunks), once, before anything runs.
struct ResolvedStreams {
    int streams = 1, chunks = 1;
    std::string param;
    int line = 0;  // the `streams:` line
    ChunkPlan plan;
};

// Every value needed for one launch, computed from the metadata and the user's choices.
struct ResolvedRun {
    std::map<std::string, double> params;           // all parameters, derived ones included
    std::set<std::string> whole_params;             // those of an integer type (int, unsigned): whole numbers
    std::map<std::string, uint64_t> buffer_counts;  // elements per buffer
    Dim3 grid, block;
    uint32_t dynamic_shared_bytes = 0;
    std::vector<uint64_t> problem;
    uint64_t traffic_bytes = 0;                     // bytes one launch reads + writes
    std::vector<ResolvedView> views;
    std::map<std::string, ResolvedImage> images;    // by buffer name
    std::map<std::string, DataFile> data;           // `data("...")` initialisers, by buffer name
    std::map<std::string, DataFile> results;        // `result NAME: data(...)` lines, by buffer name
    // Params whose value is not the one written in the header, as "n = 500 (written 1000)": `result` lines hold
    // for the written values only.
    std::vector<std::string> params_off_record;
    // A file with steps: each in order (grid, block and dynamic_shared_bytes above are the first step's).
    std::vector<ResolvedStep> steps;
    // The order of each block's threads chosen for this run (RunChoices::thread_order); none: the backend's.
    std::optional<ThreadOrderChoice> thread_order;
    std::optional<uint64_t> seed;  // RunChoices::seed: random buffers' seeds mixed with it
    size_t steps_in_file = 0;  // more than steps.size() when the user stopped after an earlier step
    std::optional<ResolvedStreams> streams;  // the file's `streams:` line, evaluated
    bool stopped_early() const { return steps.size() < steps_in_file; }
};

// What one step of a sequence did: its launch, the compiled kernel's resources and its time.
struct StepReport {
    int index = 0;
    std::string kernel;
    int line = 0;
    Dim3 grid, block;
    uint32_t dynamic_shared_bytes = 0;
    uint64_t repeat = 1;
    ResourceUsage usage;
    TimingStats timing;   // one launch of the step: every timed sample of its launches
    double total_ms = 0;  // the step's part of one pass: its launches' medians added up
};

// One output's measured coverage: the buffer was filled with a sentinel before a launch, twice with different
// sentinels, and an element that held each sentinel afterwards was written by no thread.
struct CoverageMap {
    std::string buffer;
    uint64_t elements = 0;
    uint64_t never_written = 0;
    std::vector<uint8_t> unwritten;  // per element: 1 = no thread wrote it (empty when not measured)
    std::string not_measured;        // why it could not be measured (an inout buffer); empty when measured
    std::string summary() const;     // "4,096 of 1,048,576 elements never written"

    // Elements written by more than one thread, from a launch of the write-counting variant (count_wrapper.h),
    // per element of the buffer as for `unwritten` (an element counts as written when any channel is).
    bool writers_counted = false;
    uint64_t written_more_than_once = 0;
    uint32_t max_writers = 0;
    std::vector<uint32_t> writers;     // per element: the threads that wrote it (empty when not counted)
    std::string writers_not_measured;  // why not (e.g. the variant does not compile); empty when counted or not asked
    double counting_launch_ms = 0;     // the counting launch's kernel time (one launch, the backend's clock)
    // "512 elements written by more than one thread (up to 3)", "no element written by more than one thread",
    // "written-more-than-once not measured: <why>"; empty when not asked.
    std::string writers_summary() const;
};

// Who ran where and when: one record per block (LaunchResult::trace) and what the instrumented launches cost.
struct LaunchTrace {
    std::string unit;  // "sm" or "worker"
    std::vector<BlockTrace> blocks;
    uint32_t units_used = 0;  // distinct SMs or workers that ran a block
    TimingStats timing;       // of the instrumented launches
};

// Per element |output - reference| of one output, and where it exceeds the tolerance.
struct ErrorMap {
    std::string buffer;
    uint64_t elements = 0;
    uint64_t mismatched_elements = 0;               // elements with any component beyond the tolerance
    std::vector<uint64_t> mismatched_components;     // per component (x/y/z/w or r/g/b/a)
    std::vector<float> abs_error;                   // per element: the largest component error
    double tolerance = 0, max_abs_error = 0;
    std::vector<std::string> first_mismatches;      // up to 10: "dst[12] (x 12, y 0) = ..., expected ..."
};

// Where one run's time went, each step as the backend measured it (host clock around cuMemAlloc, cuMemcpyHtoD
// and cuMemcpyDtoH on CUDA; around the copies into and out of shared memory on the CPU backend), the kernel
// being the launch's median. Buffers kept from an earlier run (the window's live re-runs keep allocations and
// const inputs) are not allocated or sent again, and count nothing here.
struct TransferTimes {
    double allocate_ms = 0;
    int allocations = 0;
    uint64_t allocated_bytes = 0;
    double upload_ms = 0;  // host -> device
    int uploads = 0;
    uint64_t upload_bytes = 0;
    double kernel_ms = 0;  // the median launch
    double download_ms = 0;  // device -> host
    int downloads = 0;
    uint64_t download_bytes = 0;
    bool pinned = false;  // the copies came from / went to pinned host memory (CUDA); else pageable
    double total_ms() const { return allocate_ms + upload_ms + kernel_ms + download_ms; }
};

// A launch split into chunks on several streams (`streams:`), as run: every operation's time on its stream, the
// total against the same operations on one stream. The window's Streams panel and `run`'s text draw its lanes.
struct StreamsReport {
    int streams = 0, chunks = 0;
    std::string param;                     // the size parameter the chunks split
    uint64_t elements = 0;                 // its value
    std::vector<StreamOp> ops;             // chunk by chunk in issue order
    std::vector<std::vector<size_t>> lanes;  // per stream: indexes into ops, by start time
    double total_ms = 0;                   // S streams: first operation's start to last one's end
    double one_stream_ms = 0;              // the same operations on one stream
    bool concurrent = false;               // the backend overlaps streams (BackendCapabilities::concurrent_streams)
    bool host_clock = false;               // times from the host clock (the CPU backend), else GPU events
    std::string printf_output;
    double gained_ms() const { return one_stream_ms - total_ms; }  // what overlapping saved (may be < 0)
    // The time two operations of different streams ran at once, summed over all pairs of a copy with a kernel.
    double copy_kernel_overlap_ms() const;
    std::string summary() const;  // "4 streams, 16 chunks: 3.10 ms (one stream: 5.02 ms, 38% less)"
};
// A text timeline: one line per stream, `width` columns from 0 to the total, H (host->device), K (kernel) and
// D (device->host) where an operation of that stream ran, then a legend; for `cuda-playground run`.
std::string streams_timeline_text(const StreamsReport& s, int width = 64);
// One device's part of a `devices:` split: the elements it did and where its time went.
struct DevicePart {
    int ordinal = 0;
    std::string name;            // the device's own name (several CPU "devices" say they are CPU workers)
    uint64_t begin = 0, end = 0;  // elements [begin, end) of the split parameter
    Dim3 grid;                    // its launch: the file's grid for a part of end - begin elements
    TransferTimes times;          // allocation, host->device, kernel (median launch), device->host
};

// A `devices: ... over PARAM` run: the work cut into one part per device, every device working at the same time
// (one thread per engine), and the same work done by the first device alone for the speed-up.
struct DeviceSplitReport {
    std::string param;        // the split parameter
    uint64_t total = 0;       // its value: the elements split
    int devices_here = 1;     // devices of this backend on the machine
    int devices_used = 1;     // parts (at most the header's N; at most the elements)
    bool gpu = false;         // the devices are GPUs; else CPU workers (which share one CPU: no real speed-up)
    std::vector<DevicePart> parts;
    // Host clock around each run of all parts: allocation, copies, the timed launches and read-backs of every
    // device, concurrently; one_device_ms is the same work on the first device alone.
    double split_ms = 0, one_device_ms = 0;
    DevicePart one_device;    // that single-device run's own figures
    double speedup() const { return split_ms > 0 ? one_device_ms / split_ms : 0; }
    // The same from the devices' own figures (allocation + copies + median kernel): the first device alone against
    // the slowest device of the split, without the host's threads, repeats and first-use costs.
    double slowest_part_ms() const;
    double stage_speedup() const { return slowest_part_ms() > 0 ? one_device.times.total_ms() / slowest_part_ms() : 0; }
    // What was done, in words: "2 GPUs: GPU 0 did [0, 500001), GPU 1 [500001, 1000003)" or, with one device,
    // "1 GPU here: GPU 0 did all 1,000,003 elements; with 2 GPUs each would take about 500,002".
    std::string summary() const;
    std::string unit() const { return gpu ? "GPU" : "CPU worker"; }
};

// Where one run's wall time went on the host, stage by stage (the frame budget that `cp_ui_bench` and the Timing
// panel print): each measured by the session around its stage, requests to the backend included. A stage that
// had nothing to do (a compile of unchanged text, an input already on the device) costs ~0 here.
struct StageTimes {
    double resolve_ms = 0;    // choices checked, expressions evaluated, images found (decoded once)
    double compile_ms = 0;    // the compile request(s), cached or not
    double prepare_ms = 0;    // allocations and uploads of the buffers that needed them
    double insight_ms = 0;    // coverage, write counting and trace launches (only when asked or warned)
    double launch_ms = 0;     // the launch request: the timed launches and the round trip to the backend
    double launch_backend_ms = 0;  // of which inside the worker process (LaunchResult::backend_ms; 0: not measured)
    LaunchPhases launch_phases;    // and how the backend's launch call divides (LaunchResult::phases; 0: not measured)
    double read_back_ms = 0;  // outputs copied to the host (only for views, the inspector or the check)
    double check_ms = 0;      // the CPU reference (when its inputs changed) and the comparison
    double variants_ms = 0;   // compare variants (set by whoever runs them)
    double total_ms = 0;      // the whole run as the caller saw it
};

// Whether one stage of a run did its work or took its product from an earlier run, and why: the frame budget and
// the Timing panel say what was redone. Stages: "compile", "upload NAME" (one per buffer), "launch", "read back",
// "check". Reasons: "source changed", "scalar n changed", "new image for `src`", "unchanged".
struct StageRun {
    std::string stage;
    bool reused = false;  // the product of an earlier run served this one: nothing was redone
    std::string reason;   // what changed since that product was made (ran), or why it could be kept (reused)
};

enum class RunStage { None, Metadata, Resolve, Compile, Validate, Prepare, Launch, Verify };
const char* run_stage_name(RunStage s);  // "compile", "validate": the JSON's names for the stages

// Why a run that could have been checked was not (RunReport::not_checked_why), set with the words
// (RunReport::not_checked): what the front ends decide on, such as the column heading's "press F5".
enum class NotCheckedWhy : uint8_t {
    None,               // checked, to be checked, nothing to check against, or the reference failed
    Skipped,            // the caller ran without the check (`run --no-verify`, RunOptions::verify off)
    EveryFrame,         // the window re-runs every frame, which skips the check
    AfterEdit,          // the window's re-run after an edit of the source
    AfterLaunchChange,  // the window's re-run after a change of the block or the grid
    AfterInputsChange,  // the window's re-run after a change of the inputs (parameters, images, options)
    StoppedEarly,       // shown after a step before the last: the check compares the last step's result
    OffRecord,          // `result` lines hold for the params' written values, and some param differs from them
};
// The window's live re-runs, which skip the check to stay fast and which F5 checks.
constexpr bool is_live_rerun(NotCheckedWhy why) {
    return why == NotCheckedWhy::EveryFrame || why == NotCheckedWhy::AfterEdit ||
           why == NotCheckedWhy::AfterLaunchChange || why == NotCheckedWhy::AfterInputsChange;
}

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
    TimingStats timing;  // with steps: one pass over all of them (sample j adds every launch's j-th sample)
    std::vector<StepReport> steps;   // a file with steps: each, in order (as far as the run got)
    TransferTimes transfers;         // allocation, host->device, kernel, device->host
    StageTimes stages;               // the host's wall time per stage (the frame budget)
    std::vector<StageRun> stage_runs;  // per stage, in order: ran or reused, and why (as far as the run got)
    double bandwidth_gbps = 0;       // traffic_bytes / median time
    double bandwidth_fraction = 0;   // of the device's measured copy bandwidth (0 if unknown)
    std::string printf_output;

    // Verification: nullopt = not checked (no reference, or not launched)
    std::optional<bool> verified;
    // The check was asked for and left to KernelSession::check (RunOptions::defer_check): the outputs are here
    // and the verdict is still to come ("checking...").
    bool check_pending = false;
    std::string not_checked;  // why a run that could have been checked was not ("shown after step 2 of 3: ...")
    NotCheckedWhy not_checked_why = NotCheckedWhy::None;  // the same, for code to decide on
    bool checked_against_recording = false;  // the outputs are judged by `result` lines, not by a CPU reference
    double reference_ms = 0;  // the CPU reference's own run (0 when its expected outputs were reused)
    // A buggy-on-purpose lesson (`expect:`): what happened ("mismatch", "fault", "refused", "hang",
    // "verified", "error") and whether it is what the lesson expects.
    std::string expect, learn;  // from the header; expect empty: the lesson must verify
    std::string outcome;
    std::optional<bool> as_expected;
    double max_abs_error = 0;
    uint64_t mismatches = 0;           // components beyond the tolerance, summed over the outputs
    uint64_t mismatched_elements = 0;  // elements with any component beyond it
    std::string mismatch_detail;
    std::vector<ErrorMap> error_maps;  // per checked output

    std::vector<CoverageMap> coverage;  // per out buffer, when measured (RunOptions::coverage)
    std::optional<LaunchTrace> trace;   // when asked (RunOptions::trace)
    // Per-line memory figures of a recording launch (RunOptions::memory): one entry per source line, space and
    // load/store (memory_figures.h).
    std::optional<MemoryRecording> memory;
    std::optional<StreamsReport> streams;  // a file with `streams:` (the outputs checked are the streamed run's)
    std::optional<DeviceSplitReport> device_split;  // a `devices:` file: each device's part

    std::map<std::string, HostBuffer> outputs;         // out/inout buffers read back (when asked)
    // Outputs handed over where they are instead of copied (RunOptions::read_back_in_place): valid only until the
    // session that ran runs again or releases its buffers; whoever keeps the report must drop them before then.
    struct InPlaceOutput {
        ElemType type = ElemType::Float;
        const std::byte* data = nullptr;
        uint64_t bytes = 0;
    };
    std::map<std::string, InPlaceOutput> outputs_in_place;
    // Outputs read back as previews (RunOptions::preview_max_width, a remote backend): box-filtered pictures of
    // width x height elements, not the values; KernelSession::read_output fetches the exact ones on demand.
    struct PreviewOutput {
        ElemType type = ElemType::Float;
        int width = 0, height = 0;            // the preview's
        int full_width = 0, full_height = 0;  // the view's
        std::vector<std::byte> bytes;
    };
    std::map<std::string, PreviewOutput> output_previews;
    std::map<std::string, uint64_t> device_addresses;  // CUDA device pointers (interop, same process)
    std::map<std::string, std::vector<uint8_t>> ipc_handles;  // CUDA IPC handles (interop, worker process)
    std::map<std::string, uint64_t> ipc_offsets;  // where each buffer starts in the allocation its handle opens

    RunStage failed_stage = RunStage::None;
    std::optional<Error> error;  // the user-level failure: what went wrong + how to fix it
    int error_line = 0;          // the kernel file's line a runtime error happened on (a fault); 0 when unknown
    std::optional<Dim3> error_thread, error_block;  // the CUDA thread a launch failed on, when known
    bool ok() const { return !error.has_value(); }
    // The entry of `stage` in stage_runs; nullptr when the run did not get there.
    const StageRun* stage_run(const std::string& stage) const {
        for (const StageRun& s : stage_runs)
            if (s.stage == stage) return &s;
        return nullptr;
    }
};

struct Checked;  // run_products.h
// Puts a check that followed the run (KernelSession::check) into the report being shown: the verdict, the errors,
// the expected outcome's judgement, the reference's diagnostics and its stage entries.
void take_check(RunReport& shown, const Checked& checked);

// A failed run in words for people, without the internal stage names: "Compile error: kernel.cu:12:5:
// error: expected a \";\"", "Launch refused: a block of 2048 threads...", "The kernel failed: thread...".
std::string run_failure_text(const RunReport& r);

// What a run showed, in the words of `expect:` ("mismatch", "fault", "refused", "hang"), or "verified",
// "error", "ran", "" (did not run). Decided on the stage that failed and its error's kind, never its words.
std::string run_outcome(const RunReport& r);

struct RunOptions {
    TimingOptions timing;
    bool read_back = true;  // read out/inout buffers into RunReport::outputs
    // With read_back, for a caller done with the outputs before this session runs again or releases its buffers
    // (a window uploading its pictures): outputs that no check of this run, no `streams:` and no plot or table
    // view needs may be handed over where they are (RunReport::outputs_in_place) instead of copied, on a backend
    // whose buffers live in this process (the CPU backend). Pixels no thread wrote still show the initial
    // contents: every run starts its outputs from them again.
    bool read_back_in_place = false;
    // With read_back, on a remote backend (frames that fit a network): outputs that only image views show, as
    // read_back_in_place decides (no check, no `streams:`, no plot or table), come back as box-filtered previews
    // no larger than this (RunReport::output_previews) instead of every element. 0: exact values.
    uint32_t preview_max_width = 0, preview_max_height = 0;
    // With read_back: only the outputs a view shows (shown_views) or the check compares come to the host; the
    // others stay on the device (a compare variant's column shows its views and nothing else).
    bool read_back_shown_only = false;
    bool verify = true;     // compare with the CPU reference (needs read_back)
    // With verify: don't check in run(); the report says check_pending and KernelSession::check does it, so a
    // window can show the picture before the CPU reference has run.
    bool defer_check = false;
    // With verify off: why, in the caller's words, for RunReport::not_checked ("re-run after a launch change:
    // press F5 to check"); empty gives the generic sentence. skipped_check_why is the same reason for
    // RunReport::not_checked_why.
    std::string skipped_check_reason;
    NotCheckedWhy skipped_check_why = NotCheckedWhy::Skipped;
    // Measure which output elements no thread wrote (two extra launches over sentinel-filled outputs).
    bool coverage = false;
    // Measure coverage anyway when the launch checks guess that the grid misses part of the problem, so the
    // warning states what happened (and disappears for grid-stride loops and threads that do several elements).
    bool coverage_when_warned = true;
    // With `coverage`: also count, per output element, the threads that wrote it (a launch of the write-counting
    // variant, compiled once per source and sizes), for the elements written more than once.
    bool count_writers = true;
    // An instrumented launch recording per block its SM (or CPU worker) and start/end times.
    bool trace = false;
    // A recording launch (a copy of the kernel that records every global and shared load and store) and the
    // per-line figures it gives: sectors per request, bank conflicts, active lanes. CPU backend only, for now.
    bool memory = false;
    // With memory: the warps whose requests come back lane by lane besides warp 0 of block 0, which always does
    // (MemoryRecording::warps; the window's warp picture).
    std::vector<WarpId> memory_warps;
    // Only the measurements asked for (coverage, trace, memory) over the run's products up to the compiled kernel
    // and its launch checks: no buffers are set for the run's own launch, which does not happen (the window's
    // recording after the run it shows: the figures of the same text and choices, not a second run).
    bool measurements_only = false;
    bool pinned_host = false;  // copies from/to pinned (page-locked) host memory, on backends that have it
    uint64_t upload_chunk_bytes = 0;  // > 0: send each input in copies of at most this many bytes
    // Called just before the launch with the report so far (launch configuration, compile, warnings), so
    // what is about to run can be shown before it runs (and perhaps hangs until the watchdog stops it).
    std::function<void(const RunReport&)> before_launch;
};

}  // namespace cp
