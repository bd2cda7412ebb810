// A kernel session: one kernel file plus the user's choices (RunChoices), driven through the engine step by
// step: resolve -> compile -> validate -> prepare buffers -> launch -> read back -> verify, each stage making one
// product (run_products.h). The command line runs it once; the window keeps one alive and re-runs it when something
// changes. The session is the one place that turns a file and choices into a run (resolve); its report carries
// that resolved run.
//
// Files: session.cpp (choices, images, compile) · session_resolve.cpp · session_buffers.cpp · session_run.cpp ·
// session_insight.cpp (coverage, trace) · session_streams.cpp (`streams:`) ·
// session_writers.cpp (elements written more than once) · sweep.cpp (block-size sweeps). Every launch goes through
// the session's Launcher (launcher.h).
#pragma once

#include "core/data/data_file.h"
#include "core/data/image_io.h"
#include "core/engine/engine.h"
#include "core/session/module_cache.h"
#include "core/engine/launch_validation.h"
#include "core/kernel_file/expr.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/device_set.h"
#include "core/session/file_reference.h"
#include "core/session/launcher.h"
#include "core/session/run_choices.h"
#include "core/session/run_products.h"
#include "core/session/run_report.h"
#include "core/session/sweep.h"

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace cp {

struct RunStages;  // run_stage.h
class Fingerprint;

// What the session asks the compiler for `file`: its text as compiled (text_to_compile), its path and its kernel.
// `compile FILE --memory` asks the same, so that the recording copy it prepares is found under the same key.
CompileRequest kernel_compile_request(const KernelFile& file);

class KernelSession {
public:
    explicit KernelSession(Engine& engine);
    ~KernelSession();
    KernelSession(const KernelSession&) = delete;
    KernelSession& operator=(const KernelSession&) = delete;

    const DeviceInfo& device() const { return engine_.device(); }
    const KernelFile& kernel() const { return kernel_; }

    // Every launch this session makes (its runs, steps, measurements, device parts, streamed runs and sweeps)
    // goes through this launcher: observe it to see them all (launcher.h).
    Launcher& launcher() { return launcher_; }
    const Launcher& launcher() const { return launcher_; }

    // Replaces the kernel (e.g. after an edit). Choices whose names still exist are kept.
    void set_kernel(KernelFile file);

    // The user's choices; resolve() checks them all and refuses (never replaces) a bad one.
    void set_choices(RunChoices choices);
    const RunChoices& choices() const { return choices_; }
    // "--set name=value" (apply_set on the current kernel): an Error says at once what is wrong with it.
    Result<bool> set_param(const std::string& name, const std::string& value);

    // Evaluates parameters, sizes, views and the launch configuration (loads images on first use). Every
    // refused choice is added to `problems` (when given) with the field it was entered in.
    Result<ResolvedRun> resolve(std::vector<InputProblem>* problems = nullptr);

    // Compiles the current source unless the last compile was of the same text (and the same also-kernels).
    const CompileResult& compile();

    // A compare variant's session: `lender` is the main kernel's session on the same engine, run just before this
    // one. Its module serves this session when it loaded this kernel too (set_also_kernels), and its inputs that
    // neither kernel can write (const, the same contents) serve as this session's: one compile and one upload for
    // all. nullptr: on its own.
    void borrow_from(const KernelSession* lender) { lender_ = lender; }
    // Other kernels of this file to load from the same compile (the compare variants of the same file).
    void set_also_kernels(std::vector<std::string> names) { also_kernels_ = std::move(names); }

    // The block size that maximises occupancy, from the engine's occupancy API, for the current kernel with
    // its current dynamic shared memory. Compiles first if needed; an Error when the kernel cannot be
    // resolved or compiled, or the backend cannot answer (e.g. it has no occupancy API).
    // With `block_sizes`, also the driver's active blocks per SM for each (the occupancy chart and its check).
    Result<OccupancyResult> suggest_block(std::vector<int> block_sizes = {});

    // Times the kernel over block shapes (sweep.h): one compile, buffers set up once, then launches. The
    // choices are left as they were; apply the best with set_choices.
    Result<SweepResult> sweep(const SweepOptions& options);

    // The devices a `devices:` file is split over: `count` of them (the backend's DeviceInfo::device_count), the
    // others opened by `open` when first needed (session_devices.cpp). Not called, or without `open`: a split
    // runs on this session's device alone and says what it would do with more.
    void use_devices(int count, OpenEngine open);

    // Everything, in order; never throws; the report says where it stopped and why. With a compile-only
    // backend it stops after validating, without an error (report.launched is false). A buggy-on-purpose
    // lesson (`expect:`) gets report.outcome and report.as_expected.
    RunReport run(const RunOptions& options = {});
    // The check a run with RunOptions::defer_check left pending, on that run's report (its outputs, as read back)
    // before anything else ran in this session: compares with the CPU reference and judges an `expect:` lesson. The
    // same check stage as a run's, on the same products; take_check puts it into the report shown. nullopt: the
    // report's check was not pending.
    std::optional<Checked> check(const RunReport& report);
    // The exact values of output `name` as the last run left them, read back now: what the inspector, an export
    // or a check needs after a run whose picture came as a preview (RunReport::output_previews). Valid only
    // before anything else ran in this session; an Error when the buffer is not an output or is gone.
    Result<HostBuffer> read_output(const std::string& name);
    // Each buffer's initial contents on the host as `resolved` fills them (zeros, random, its image, its data
    // file), refilled only when what determines them changed: what a run uploads, and what an export embeds.
    Result<const HostBuffer*> host_input(const BufferSpec& spec, const ResolvedRun& resolved);

    // The debugger (issue 39): block `block` (linear index) run alone by the stepping copy of the kernel, every
    // statement's variables and the shared memory after each round recorded (a backend whose capabilities say
    // debug_steps; an Unsupported error otherwise). A block that faults is recorded up to the fault, and the
    // failure (its kind, line and thread) comes with the recording. `warp` >= 0: that warp steps alone, the others
    // held until it reaches a barrier or its end (LaunchRequest::debug_warp).
    Result<BlockDebugRun> record_block(const ResolvedRun& resolved, uint64_t block, int32_t warp = -1);

private:
    std::filesystem::path image_path(const BufferSpec& buffer) const;
    Result<std::shared_ptr<const Image>> image_for(const BufferSpec& buffer);
    // A `data("...")` file of the kernel file, read again only when its size or time changed.
    Result<DataFile> data_file(const std::string& written);
    Result<bool> resolve_choices(const ResolvedRun& r, std::vector<InputProblem>& problems) const;
    // resolve()'s steps (session_resolve.cpp), each adding to `r` and `scope`; a refused choice goes to `problems`.
    Result<bool> resolve_params(ResolvedRun& r, Scope& scope, std::vector<InputProblem>& problems);
    Result<bool> resolve_buffer_sizes(ResolvedRun& r, Scope& scope, std::vector<InputProblem>& problems) const;
    Result<bool> resolve_launch(ResolvedRun& r, Scope& scope, const Scope& step_scope,
                                std::vector<InputProblem>& problems) const;
    Result<bool> resolve_extents(ResolvedRun& r, const Scope& scope, std::vector<InputProblem>& problems) const;
    // The device's per-dimension and per-block limits, which need no compiled kernel: checked before compiling.
    std::vector<InputProblem> check_device_limits(const ResolvedRun& r,
                                                  std::vector<LaunchIssue>* refusals = nullptr) const;
    Result<bool> prepare_buffers(const ResolvedRun& resolved, const RunOptions& options, TransferTimes& times);
    // For the extra launches of coverage, traces and sweeps: default copies, times not reported.
    Result<bool> prepare_buffers(const ResolvedRun& resolved) {
        TransferTimes unreported;
        return prepare_buffers(resolved, RunOptions{}, unreported);
    }
    void release_buffers();
    // session_devices.cpp: a `devices:` file's run, one part per device, outputs assembled and checked.
    RunReport run_on_devices(const ResolvedRun& resolved, const CompileResult& compiled, const RunOptions& options,
                             RunReport report);
    void forget_device_state();  // after the backend reset its context: every buffer and module is gone
    // session_run.cpp: a run goes through these stages in order; each makes its product (run_products.h) from the
    // ones before it and may end the run (RunState::fail, or done). The stages are shared; a driver is the order a
    // kind of run takes through them (one kernel, `step:` lines, `streams:`, `devices:`), picked once the run is
    // resolved (run_stages). The report is assembled from the products at the end (assemble_report).
    struct RunState;
    RunReport run_stages(const RunOptions& options);
    RunReport assemble_report(RunState& run);
    bool stage_check_file(RunState& run);
    bool stage_resolve(RunState& run);
    bool stage_compile(RunState& run);
    bool stage_compile_steps(RunState& run);
    bool stage_validate(RunState& run);
    bool stage_validate_steps(RunState& run);
    bool stage_measure(RunState& run);
    bool stage_prepare(RunState& run);
    bool stage_launch(RunState& run);
    bool stage_launch_steps(RunState& run);
    bool stage_read_back(RunState& run);
    bool stage_streams(RunState& run);
    bool stage_devices(RunState& run);
    bool stage_check(RunState& run);
    // What a launch depends on (module, scalars, launch, steps, inputs, buffers, timing): its stage's fingerprint.
    Fingerprint launch_fingerprint(const RunState& run, const LaunchRequest& launch) const;
    // The launch stage's product from a launch a driver made (one kernel's, or the steps'): its stage entry, its
    // failure, or its time and bandwidth; a launch that succeeded is kept as the stage's last.
    Launched record_launch(const ResolvedRun& resolved, Fingerprint fingerprint, LaunchOutcome outcome);
    // The measurements' product (coverage when `coverage`, the trace and the recording as `options` asks).
    Made<Measured> measure(const ResolvedRun& resolved, const CompiledKernel& compiled, const RunOptions& options,
                           bool coverage);
    // The outputs of the launch over `prepared`, as `options` asks for them.
    Made<ReadBack> read_back_outputs(const ResolvedRun& resolved, const RunOptions& options,
                                     const PreparedBuffers& prepared);
    // The check stage's product: `outputs` (with those of `replaced`, a streamed run's, in their place) against the
    // file's CPU reference (its expected outputs kept while what they depend on is unchanged).
    Checked check_outputs(const ResolvedRun& resolved, const std::map<std::string, HostBuffer>& outputs,
                          const std::map<std::string, HostBuffer>* replaced = nullptr);
    Checked check_recorded(const ResolvedRun& resolved, const std::map<std::string, HostBuffer>& outputs,
                           const std::map<std::string, HostBuffer>* replaced) const;
    // A launch on this session's engine through launcher_; the one place a launch that reset the backend's
    // context makes the session forget its buffers and modules (a split's other devices: session_devices.cpp).
    LaunchOutcome launch_kernel(LaunchRequest request, LaunchSite site);
    StreamsOutcome launch_streams(StreamsRequest request, LaunchSite site);
    // The purpose of the run's own launch: a compare variant's session (borrow_from) makes Variant launches.
    LaunchPurpose run_purpose() const { return lender_ ? LaunchPurpose::Variant : LaunchPurpose::Run; }
    // A compile beside the kernel's own (the trace's, the recording's, the counting variant's, a step's kernel),
    // from the session's keyed cache in `slot`, said in the run's stage_runs as `stage` with ran/reused and why.
    const CompileResult& compile_extra(const std::string& slot, const std::string& stage, CompileRequest request);
    void judge_expected(RunReport& report) const;  // `expect:`: the outcome and whether it is the one expected
    // The launch of `module` with the resolved configuration and the session's buffers (or `prepared`'s) as
    // arguments; with `signature` and `step`, that step's kernel and launch.
    Result<LaunchRequest> launch_request(const ResolvedRun& resolved, ModuleId module, const TimingOptions& timing,
                                         const KernelSignature* signature = nullptr, const ResolvedStep* step = nullptr,
                                         const PreparedBuffers* prepared = nullptr) const;
    // session_steps.cpp: a file's `step:` sequence resolved, compiled (one module per kernel) and launched.
    Result<bool> resolve_steps(ResolvedRun& r, const Scope& base) const;
    // Their compiles' entries and times go into `into` (the kernel's product).
    Result<std::vector<const CompileResult*>> compile_steps(CompiledKernel& into);
    // Into `into`: each step's report, the timing of a pass over all and the printf output.
    Result<bool> launch_steps(const ResolvedRun& resolved, const std::vector<const CompileResult*>& modules,
                              const TimingOptions& timing, Launched& into);
    // session_insight.cpp: two launches over sentinel-filled outputs; an instrumented launch.
    Result<std::vector<CoverageMap>> measure_coverage(const ResolvedRun& resolved, ModuleId module);
    Result<LaunchTrace> trace_launch(const ResolvedRun& resolved, const TimingOptions& timing);
    // A launch of the recording variant (issue 23): every global and shared access, and the per-line figures.
    Result<MemoryRecording> record_memory(const ResolvedRun& resolved, const std::vector<WarpId>& warps = {});
    // session_streams.cpp: the launch again, split into chunks on streams (`streams:`); its outputs (into.outputs)
    // replace the ordinary read-back's, so the check judges them.
    Result<StreamsReport> run_streams(const ResolvedRun& resolved, ModuleId module, Streamed& into);
    // session_writers.cpp: a launch of the write-counting variant; fills each map's writer counts, or says in
    // it why they could not be counted (never fails the run).
    void count_writers(const ResolvedRun& resolved, std::vector<CoverageMap>& maps);

    Engine& engine_;
    Launcher launcher_;
    KernelFile kernel_;
    RunChoices choices_;
    std::map<std::string, std::shared_ptr<const Image>> image_cache_;  // path -> image
    struct CachedData {
        uint64_t size = 0;
        std::filesystem::file_time_type time;
        DataFile file;
    };
    std::map<std::string, CachedData> data_cache_;  // path -> its contents

    // Every module this session compiled (or borrowed): "plain" (the kernel, and the compare variants of the same
    // file loaded with it), "traced", "memory" (recording), "counted" (its text holds the sizes), "step:NAME" (steps'
    // other kernels).
    ModuleCache modules_;
    std::vector<std::string> also_kernels_;  // other kernels to load with the plain compile
    const KernelSession* lender_ = nullptr;
    CompileRequest plain_request() const;

    struct DeviceBuffer {
        BufferId id = 0;
        uint64_t bytes = 0;
        uint64_t device_address = 0;
        std::vector<uint8_t> ipc_handle;
        uint64_t ipc_offset = 0;
        std::string content_key;  // the initial contents the device copy still holds; empty: unknown
        bool borrowed = false;    // the lender's buffer (an input neither kernel writes): never released here
    };
    std::map<std::string, DeviceBuffer> buffers_;
    // The lender's device copy of input `name` when it holds exactly these contents and neither kernel can
    // write it (see borrow_from); nullptr otherwise.
    const DeviceBuffer* lent_input(const std::string& name, const std::string& content_key, uint64_t bytes) const;

    // Each buffer's initial contents on the host (for uploads and the reference), refilled only when what
    // determines them changes: live re-runs of a 4K filter must not re-decode and re-send the photo.
    struct HostInput {
        std::string key;
        HostBuffer host;
    };
    std::map<std::string, HostInput> host_inputs_;

    // The file's CPU reference (started at the first check); its last expected outputs are a stage's product.
    std::unique_ptr<FileReference> reference_;

    // The fingerprints the run's stages were last made from (run_stage.h): what each depends on, so a run says
    // per stage whether it redid its work and why (RunReport::stage_runs).
    std::unique_ptr<RunStages> stages_;

    int device_count_ = 1;
    OpenEngine open_engine_;
    std::unique_ptr<DeviceSet> devices_;  // made at the first split, from the two above
};

// A buffer filled with one repeated value (zeros, constant): sent as a pattern, not whole (session_buffers.cpp).
bool buffer_is_uniform(const BufferSpec& spec);

}  // namespace cp
