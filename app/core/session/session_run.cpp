// KernelSession::run, top to bottom: the stages of a run and the product each makes (run_products.h), and the
// drivers that take a run through them (one kernel, `step:` lines, `streams:`, `devices:`, measurements only).
//
//   stage          reads                                   makes
//   check file     the kernel file                         the report's head (title, kernel, diagnostics)
//   resolve        the file + the choices                  ResolvedRun
//   compile        ResolvedRun (+ `step:` kernels)         CompiledKernel
//   validate       ResolvedRun, CompiledKernel             the launch checks (refusal ends the run)
//   measure        ResolvedRun, CompiledKernel             Measured (coverage, trace, memory: launches of their own)
//   prepare        ResolvedRun                             PreparedBuffers
//   launch         ResolvedRun, CompiledKernel, Prepared   Launched (through the session's one Launcher)
//   read back      ResolvedRun, PreparedBuffers            ReadBack
//   streams        ResolvedRun, CompiledKernel, Prepared   Streamed (its outputs replace ReadBack's for the check)
//   check          ResolvedRun, the outputs                Checked (now; or later: KernelSession::check)
//   devices        ResolvedRun, CompiledKernel, the report the `devices:` split's report (session_devices.cpp)
// The report is assembled from the products when the run ends (assemble_report), in this order. Every stage that
// fails ends the run with a report saying where and why; nothing throws.
//
// Sections: the outcome's words · run, check and take_check (the deferred check) · the products into the report ·
// the run: its state and its table of stages · the stages in order: check file, resolve, compile (+ steps),
// validate (+ steps), measure, prepare, devices, launch (+ steps; the fingerprint; the one launch door), read back,
// streams, check · the check's product (check_outputs)
#include "core/clock.h"
#include "core/kernel_file/reference_section.h"
#include "core/session/coverage.h"
#include "core/session/file_reference.h"
#include "core/session/output_compare.h"
#include "core/session/report_text.h"
#include "core/session/run_stage.h"
#include "core/session/scalar_arg.h"
#include "core/session/session.h"
#include "core/text_util.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <span>

namespace cp {

std::string run_outcome(const RunReport& r) {
    if (r.verified == false) return "mismatch";
    // The CPU reference failed (whatever its kind): nothing was learnt of the kernel's result.
    if (r.error && r.failed_stage == RunStage::Verify) return "error";
    if (r.error) {
        switch (r.error->kind) {
            case ErrorKind::LaunchRefused:
                return "refused";
            case ErrorKind::Hang:
                return "hang";
            case ErrorKind::Fault:
            case ErrorKind::OutOfBounds:
            case ErrorKind::WorkerLost:
                return "fault";  // a crash that took the worker with it is a fault too
            case ErrorKind::Unknown:
                // Unclassified: the stage says it (a launch that failed is the kernel's fault).
                if (r.failed_stage == RunStage::Validate) return "refused";
                if (r.failed_stage == RunStage::Launch) return "fault";
                return "error";
            default:
                return "error";
        }
    }
    if (r.verified == true) return "verified";
    return r.launched ? "ran" : "";
}

// Wall time since the previous lap, added to a stage's figure (StageTimes). Not in an anonymous namespace:
// KernelSession::RunState, a member of a class with linkage, holds one.
class StageClock {
public:
    void lap(double& stage_ms) {
        const auto now = std::chrono::steady_clock::now();
        stage_ms += ms_between(last_, now);
        last_ = now;
    }

private:
    std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

RunReport KernelSession::run(const RunOptions& options) {
    const auto started = std::chrono::steady_clock::now();
    RunReport report = run_stages(options);
    report.stages.total_ms = ms_since(started);
    judge_expected(report);
    return report;
}

void KernelSession::judge_expected(RunReport& report) const {
    const KernelSpec& spec = kernel_.spec;
    if (spec.expect == ExpectedOutcome::None) return;
    report.learn = spec.learn;
    report.outcome = run_outcome(report);
    report.as_expected.reset();
    // The first clause of `expect:` that applies to this backend and device decides (a header without clauses,
    // built in code, expects its one outcome everywhere).
    const DeviceInfo& dev = device();
    const int cc = dev.cc_major * 10 + dev.cc_minor;
    std::vector<ExpectClause> clauses = spec.expect_clauses;
    if (clauses.empty()) clauses.push_back(ExpectClause{spec.expect, spec.expect_backend, 0, 0});
    const auto clause = std::find_if(clauses.begin(), clauses.end(),
                                     [&](const ExpectClause& c) { return c.applies(dev.backend, cc); });
    // Where the bug shows: the clauses with a failure, in words ("as a hang on the CPU backend").
    std::string shows;
    for (const ExpectClause& c : clauses) {
        if (c.outcome == ExpectedOutcome::Undefined) continue;
        if (!shows.empty()) shows += ", ";
        shows += std::string("as a ") + (c.outcome == ExpectedOutcome::Refused ? "refused launch" : expected_outcome_name(c.outcome));
        if (!c.backend.empty()) shows += std::string(" on the ") + (c.backend == "cpu" ? "CPU" : "CUDA") + " backend";
        if (c.from_cc) shows += " from sm_" + std::to_string(c.from_cc);
        if (c.before_cc) shows += " before sm_" + std::to_string(c.before_cc);
    }
    const std::string here = dev.backend == "cuda" && cc > 0 ? "the CUDA backend on " + (dev.arch.empty() ? "sm_" + std::to_string(cc) : dev.arch)
                                                             : std::string("the ") + (dev.backend == "cpu" ? "CPU" : dev.backend) + " backend";
    if (clause == clauses.end()) {
        // A bug that shows only elsewhere (undefined behaviour here): said, never judged here.
        report.expect = expected_outcome_name(spec.expect);
        report.learn += std::string(report.learn.empty() ? "" : " ") + "(The lesson shows this bug " + shows +
                        "; here the result is undefined, so whatever this run gives is not judged.)";
        return;
    }
    report.expect = expected_outcome_name(clause->outcome);
    // Nothing to judge when the lesson could not run here, or ran unchecked (verification off, or still to come).
    if (report.outcome == "" || report.outcome == "ran" || report.check_pending) return;
    if (clause->outcome == ExpectedOutcome::Undefined) {
        // The lesson says so: any result here is luck, which the lesson's text explains; it is not a failure.
        report.as_expected = true;
        report.learn += std::string(report.learn.empty() ? "" : " ") + "(On " + here +
                        " this bug is undefined behaviour: this run's result (" + report.outcome +
                        ") is luck, not a verdict. The lesson shows it " + shows + ".)";
        return;
    }
    report.as_expected = report.outcome == report.expect;
}

std::optional<Checked> KernelSession::check(const RunReport& report) {
    if (!report.check_pending || !report.resolved) return std::nullopt;
    const auto started = std::chrono::steady_clock::now();
    Checked checked = check_outputs(*report.resolved, report.outputs);
    checked.check_ms = ms_since(started);
    // The lesson's judgement as the report will read once it has taken this check.
    RunReport judged;
    judged.launched = report.launched;
    judged.failed_stage = report.failed_stage;
    judged.error = report.error;
    add_to_report(checked, judged);
    judge_expected(judged);
    checked.outcome = judged.outcome;
    checked.as_expected = judged.as_expected;
    return checked;
}

void take_check(RunReport& shown, const Checked& checked) {
    shown.check_pending = false;
    add_to_report(checked, shown);
    shown.stages.check_ms = checked.check_ms;
    shown.outcome = checked.outcome;
    shown.as_expected = checked.as_expected;
}

// ---- the products into the report ------------------------------------------------------------------------------

void add_to_report(const CompiledKernel& p, RunReport& report) {
    report.stage_runs.insert(report.stage_runs.end(), p.runs.begin(), p.runs.end());
    report.compiled = true;
    report.diagnostics.insert(report.diagnostics.end(), p.diagnostics.begin(), p.diagnostics.end());
    report.usage = p.usage;
    report.cache_hit = p.cache_hit;
    report.compile_ms = p.compile_ms;
}

void add_to_report(const Measured& p, RunReport& report) {
    report.stage_runs.insert(report.stage_runs.end(), p.runs.begin(), p.runs.end());
    report.coverage = p.coverage;
    report.trace = p.trace;
    report.memory = p.memory;
}

void add_to_report(const PreparedBuffers& p, RunReport& report) {
    report.stage_runs.insert(report.stage_runs.end(), p.runs.begin(), p.runs.end());
    report.transfers = p.transfers;
    // Where each buffer lives, also for a launch that fails: compute-sanitizer's findings name addresses (taken
    // before the launch, as one that resets the context leaves no buffers to ask).
    for (const auto& [name, b] : p.buffers) report.device_addresses[name] = b.device_address;
}

void add_to_report(const Launched& p, RunReport& report) {
    if (p.run) report.stage_runs.push_back(*p.run);
    report.stages.launch_backend_ms = p.outcome.backend_ms;
    report.stages.launch_phases = p.outcome.phases;
    report.printf_output = p.outcome.printf_output;
    report.steps = p.steps;
    if (p.outcome.failure) {
        report.error_line = p.outcome.failure->line;
        report.error_thread = p.outcome.failure->thread;
        report.error_block = p.outcome.failure->block;
        return;
    }
    if (!p.run) return;  // a step failed
    report.launched = true;
    report.timing = p.outcome.timing;
    report.transfers.kernel_ms = p.outcome.timing.median_ms;
    report.bandwidth_gbps = p.bandwidth_gbps;
    report.bandwidth_fraction = p.bandwidth_fraction;
}

void add_to_report(ReadBack&& p, RunReport& report) {
    if (p.run) report.stage_runs.push_back(std::move(*p.run));
    report.outputs = std::move(p.outputs);
    report.outputs_in_place = std::move(p.in_place);
    report.output_previews = std::move(p.previews);
    report.transfers.download_ms += p.download_ms;
    report.transfers.downloads += p.downloads;
    report.transfers.download_bytes += p.download_bytes;
}

void add_to_report(Streamed&& p, RunReport& report) {
    report.stage_runs.push_back(std::move(p.run));
    if (p.error_line) report.error_line = p.error_line;
    if (p.report) report.streams = std::move(p.report);
    for (auto& [name, out] : p.outputs) report.outputs[name] = std::move(out);
}

void add_to_report(const Checked& p, RunReport& report) {
    report.verified = p.verified;
    report.reference_ms = p.reference_ms;
    report.max_abs_error = p.max_abs_error;
    report.mismatches = p.mismatches;
    report.mismatched_elements = p.mismatched_elements;
    report.mismatch_detail = p.mismatch_detail;
    report.error_maps = p.error_maps;
    report.diagnostics.insert(report.diagnostics.end(), p.diagnostics.begin(), p.diagnostics.end());
    report.stage_runs.insert(report.stage_runs.end(), p.runs.begin(), p.runs.end());
    report.checked_against_recording = p.recorded;
    if (!p.not_checked.empty()) {
        report.not_checked = p.not_checked;
        report.not_checked_why = p.not_checked_why;
    }
    if (p.error && !report.error) {  // the reference itself failed
        report.error = p.error;
        report.failed_stage = RunStage::Verify;
    }
}

// ---- the run: its state and its table of stages ----------------------------------------------------------------

// One run on its way through the stages: the run's head (the file, the choices, the launch checks, the stage
// times, and how it ended) and each stage's product, made once by its stage and only read after (run_products.h).
// The report is assembled from them when the run ends (assemble_report).
struct KernelSession::RunState {
    const RunOptions& options;
    RunReport report;  // the head; the products go into it at the end
    StageClock clock;
    std::optional<ResolvedRun> resolved;      // resolve
    std::optional<CompiledKernel> compiled;   // compile (+ the steps' modules)
    std::optional<Measured> measured;         // measure
    std::optional<PreparedBuffers> prepared;  // prepare
    std::optional<Launched> launched;         // launch (+ the steps')
    std::optional<ReadBack> read_back;        // read back
    std::optional<Streamed> streamed;         // streams
    std::optional<Checked> checked;           // check
    // Ends the run with the stage that failed and why; returns false, as a stage that stops the run does.
    bool fail(RunStage stage, Error e) {
        report.failed_stage = stage;
        report.error = std::move(e);
        return false;
    }
    // The report as far as the run got, before the launch (RunOptions::before_launch): the head and the products
    // made so far.
    RunReport so_far() const {
        RunReport r = report;
        if (compiled) add_to_report(*compiled, r);
        if (measured) add_to_report(*measured, r);
        if (prepared) add_to_report(*prepared, r);
        return r;
    }
};

// The report of a run that ended: its head, then each product made, in the stages' order. The products are
// handed over (the outputs move); the run holds none after.
RunReport KernelSession::assemble_report(RunState& run) {
    RunReport& report = run.report;
    if (run.compiled) add_to_report(*run.compiled, report);
    if (run.measured) add_to_report(*run.measured, report);
    if (run.prepared) add_to_report(*run.prepared, report);
    if (run.launched) {
        add_to_report(*run.launched, report);
        // The buffers' handles for interop in another process, once a launch filled them.
        if (report.launched && run.prepared)
            for (const auto& [name, b] : run.prepared->buffers)
                if (!b.ipc_handle.empty()) {
                    report.ipc_handles[name] = b.ipc_handle;
                    report.ipc_offsets[name] = b.ipc_offset;
                }
    }
    if (run.read_back) add_to_report(std::move(*run.read_back), report);
    if (run.streamed) add_to_report(std::move(*run.streamed), report);
    if (run.checked) add_to_report(*run.checked, report);
    run.compiled.reset();
    run.measured.reset();
    run.prepared.reset();
    run.launched.reset();
    run.read_back.reset();
    run.streamed.reset();
    run.checked.reset();
    return std::move(report);
}

// Every run passes the same front stages (the file, the choices, the kernel's module); then a driver takes it
// through the stages its kind of run needs, in order. Each stage reads the products of the ones before it, makes
// its own (run_products.h) and its time, and returns false to end the run: failed (RunState::fail says where and
// why) or complete early (a compile-only backend, a run that reads nothing back). What a stage finds unchanged
// since the last run it does not redo (run_stage.h): the compile cache (compile(), compile_extra()), the buffers'
// content keys (prepare_buffers), the host inputs (host_input) and the reference (check_outputs) are keyed by
// their inputs, and each product says in its StageRun entries whether it was made again and why.
RunReport KernelSession::run_stages(const RunOptions& options) {
    using Stage = bool (KernelSession::*)(RunState&);
    using K = KernelSession;
    static constexpr Stage kFront[] = {&K::stage_check_file, &K::stage_resolve, &K::stage_compile};
    // One kernel's launch: the measurements, its buffers, the launch, the outputs, the check.
    static constexpr Stage kOneKernel[] = {&K::stage_validate, &K::stage_measure,   &K::stage_prepare,
                                           &K::stage_launch,   &K::stage_read_back, &K::stage_check};
    // `step:` lines: a module per step's kernel, each step validated and launched in turn on the same buffers.
    static constexpr Stage kSteps[] = {&K::stage_compile_steps, &K::stage_validate_steps, &K::stage_measure,
                                       &K::stage_prepare,       &K::stage_launch_steps,   &K::stage_read_back,
                                       &K::stage_check};
    // `streams:`: one kernel's run, then the launch again in chunks on streams, whose outputs are the ones checked.
    static constexpr Stage kStreams[] = {&K::stage_validate,  &K::stage_measure, &K::stage_prepare, &K::stage_launch,
                                         &K::stage_read_back, &K::stage_streams, &K::stage_check};
    // `devices:`: the kernel's part on each device (session_devices.cpp), assembled and checked there.
    static constexpr Stage kDevices[] = {&K::stage_validate, &K::stage_measure, &K::stage_devices};
    static constexpr Stage kStepsOnDevices[] = {&K::stage_compile_steps, &K::stage_validate_steps, &K::stage_measure,
                                                &K::stage_devices};
    // RunOptions::measurements_only: the launch checks and the measurements, nothing of the run's own launch.
    static constexpr Stage kMeasurements[] = {&K::stage_validate, &K::stage_measure};
    static constexpr Stage kStepsMeasurements[] = {&K::stage_compile_steps, &K::stage_validate_steps,
                                                   &K::stage_measure};
    RunState run{options, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
    for (const Stage stage : kFront)
        if (!(this->*stage)(run)) return assemble_report(run);
    const bool steps = !run.resolved->steps.empty();
    const std::span<const Stage> driver =
        options.measurements_only
            ? (steps ? std::span<const Stage>(kStepsMeasurements) : std::span<const Stage>(kMeasurements))
        : kernel_.spec.devices.enabled()
            ? (steps ? std::span<const Stage>(kStepsOnDevices) : std::span<const Stage>(kDevices))
        : steps                 ? std::span<const Stage>(kSteps)
        : run.resolved->streams ? std::span<const Stage>(kStreams)
                                : std::span<const Stage>(kOneKernel);
    for (const Stage stage : driver)
        if (!(this->*stage)(run)) break;
    return assemble_report(run);
}

// ---- the stages, in order ---------------------------------------------------------------------------------------

// The file: its header and signature parse, and it has a kernel.
bool KernelSession::stage_check_file(RunState& run) {
    RunReport& report = run.report;
    const KernelSpec& spec = kernel_.spec;
    report.kernel = kernel_.signature ? kernel_.signature->launch_name : std::string();
    if (!kernel_.step_signatures.empty()) {
        report.kernel.clear();
        for (const StepSpec& s : spec.steps) report.kernel += (report.kernel.empty() ? "" : ", ") + s.kernel;
    }
    report.title = spec.title.empty() ? report.kernel : spec.title;
    report.backend = device().backend;
    report.device = device().name;
    report.diagnostics = kernel_.diagnostics;
    for (const auto& d : kernel_.diagnostics) {
        if (d.severity == Severity::Error) {
            return run.fail(RunStage::Metadata,
                            make_error(ErrorKind::Metadata, "the kernel file has an error: " + d.str(),
                                       "fix the metadata header or the signature as the message says"));
        }
    }
    if (!kernel_.signature) {
        return run.fail(RunStage::Metadata,
                        make_error(ErrorKind::Metadata, "no __global__ function found in " + kernel_.path.string(),
                                   "a kernel file holds exactly one __global__ function"));
    }
    return true;
}

// The choices and expressions: sizes, launch, images; then what the device refuses whatever the kernel is,
// before spending a compile on it (the limits that depend on the compiled kernel come after compiling).
bool KernelSession::stage_resolve(RunState& run) {
    RunReport& report = run.report;
    auto resolved = resolve(&report.input_problems);
    run.clock.lap(report.stages.resolve_ms);
    if (!resolved) return run.fail(RunStage::Resolve, resolved.error());
    report.resolved = *resolved;
    run.resolved = std::move(*resolved);
    if (auto refused = check_device_limits(*run.resolved, &report.launch_issues); !refused.empty()) {
        report.input_problems = refused;
        return run.fail(RunStage::Validate,
                        make_error(ErrorKind::LaunchRefused, "launch refused: " + refused.front().error.message,
                                   refused.front().error.hint));
    }
    return true;
}

namespace {
const char* const kFixCompileHint = "fix the source at the line shown; nothing was launched";
}  // namespace

// The kernel's module, from the session's keyed cache when the text is unchanged.
bool KernelSession::stage_compile(RunState& run) {
    const CompileResult& module = compile();
    run.clock.lap(run.report.stages.compile_ms);
    CompiledKernel& compiled = run.compiled.emplace();
    compiled.module = &module;
    if (stages_->compile_run) compiled.runs.push_back(*stages_->compile_run);
    compiled.diagnostics = module.diagnostics;
    compiled.usage = module.usage;
    compiled.cache_hit = module.cache_hit;
    compiled.compile_ms = module.compile_ms;
    if (module.ok) return true;
    if (module.error) {
        // A lost remote worker (or a reset context) compiled nothing: kept, this answer would come back for the
        // same text from the cache, and the next run would never ask the worker (or reconnect) again.
        Error error = to_error(*module.error);
        if (module.error->context_was_reset) forget_device_state();
        return run.fail(RunStage::Compile, std::move(error));
    }
    return run.fail(RunStage::Compile, make_error(ErrorKind::Compile, compile_failure_text(module), kFixCompileHint));
}

// The steps' other kernels, one module each (compile_extra: each its own stage entry), into the kernel's product.
bool KernelSession::stage_compile_steps(RunState& run) {
    CompiledKernel& compiled = *run.compiled;
    auto modules = compile_steps(compiled);
    run.clock.lap(run.report.stages.compile_ms);
    if (!modules) return run.fail(RunStage::Compile, modules.error());
    compiled.steps = std::move(*modules);
    for (size_t i = 0; i < compiled.steps.size(); ++i) {
        const CompileResult& c = *compiled.steps[i];
        if (c.ok) continue;
        for (const auto& d : c.diagnostics)
            if (d.severity == Severity::Error) compiled.diagnostics.push_back(d);
        const std::string step = step_label(run.resolved->steps[i]);
        if (c.error) {
            Error error = to_error(*c.error);
            error.message = step + ": " + error.message;
            if (c.error->context_was_reset) forget_device_state();
            return run.fail(RunStage::Compile, std::move(error));
        }
        return run.fail(RunStage::Compile,
                        make_error(ErrorKind::Compile, step + ": " + compile_failure_text(c), kFixCompileHint));
    }
    return true;
}

namespace {
// The first refusal among a run's launch checks (it ends the run), or none.
const LaunchIssue* first_refusal(const std::vector<LaunchIssue>& issues) {
    for (const auto& issue : issues)
        if (issue.severity == Severity::Error) return &issue;
    return nullptr;
}
}  // namespace

// The launch against the compiled kernel's resources (registers, shared memory, __launch_bounds__): the checks go
// to the report's launch_issues. A compile-only backend stops here: compiling was the whole job.
bool KernelSession::stage_validate(RunState& run) {
    RunReport& report = run.report;
    const ResolvedRun& resolved = *run.resolved;
    LaunchCheck check{resolved.grid, resolved.block, resolved.dynamic_shared_bytes, run.compiled->usage,
                      resolved.problem};
    report.launch_issues = validate_launch(device(), check);
    if (const LaunchIssue* issue = first_refusal(report.launch_issues))
        return run.fail(RunStage::Validate, make_error(ErrorKind::LaunchRefused, "launch refused: " + issue->message,
                                                       "change the block/grid (--block, --grid) as suggested"));
    // Not running is then no error of the kernel's: report.launched says it did not run, the device notes why.
    if (!engine_.capabilities().launches) return false;
    run.clock.lap(report.stages.resolve_ms);  // the launch checks
    return true;
}

// Each step against its own kernel's resources; no coverage guess (a pass over partial sums is one block).
bool KernelSession::stage_validate_steps(RunState& run) {
    RunReport& report = run.report;
    const ResolvedRun& resolved = *run.resolved;
    for (size_t i = 0; i < resolved.steps.size(); ++i) {
        const ResolvedStep& s = resolved.steps[i];
        for (LaunchIssue issue : validate_launch(device(), LaunchCheck{s.grid, s.block, s.dynamic_shared_bytes,
                                                                       run.compiled->steps[i]->usage, {}})) {
            issue.message = step_label(s) + ": " + issue.message;
            report.launch_issues.push_back(std::move(issue));
        }
    }
    if (const LaunchIssue* issue = first_refusal(report.launch_issues))
        return run.fail(RunStage::Validate,
                        make_error(ErrorKind::LaunchRefused, "launch refused: " + issue->message,
                                   "change the step's settings on its `step:` line as suggested"));
    if (!engine_.capabilities().launches) return false;  // as stage_validate
    run.clock.lap(report.stages.resolve_ms);
    return true;
}

// Measurements that need launches of their own (session_insight.cpp), over the resolved run and the compiled
// kernel, before the run's buffers are set so that the buffers the window shows hold the run's own output:
// coverage (asked, or when the launch looks short of the data), the trace and the memory recording. Their
// compiles (trace, recording, counting) are entries of the product's own.
bool KernelSession::stage_measure(RunState& run) {
    const RunOptions& options = run.options;
    const ResolvedRun& resolved = *run.resolved;
    if (!resolved.steps.empty() && (options.coverage || options.trace || options.memory))
        return run.fail(
            RunStage::Launch,
            make_error(ErrorKind::UserInput,
                       std::string(options.coverage ? "coverage"
                                   : options.trace  ? "a trace"
                                                    : "the memory recording") +
                           " is measured over one kernel's "
                           "launch, and this file runs " +
                           std::to_string(resolved.steps.size()) + " steps",
                       "run one of its kernels alone: copy the file, replace its `step:` lines by `kernel: NAME` "
                       "with that step's block and grid"));
    bool warned = false;
    for (const auto& issue : run.report.launch_issues) warned = warned || issue.limit == kCoverageLimit;
    const bool coverage = options.coverage || (options.coverage_when_warned && warned);
    if (!coverage && !options.trace && !options.memory) return true;
    Made<Measured> made = measure(resolved, *run.compiled, options, coverage);
    run.clock.lap(run.report.stages.insight_ms);
    run.measured = std::move(made.product);
    if (made.error) return run.fail(RunStage::Launch, std::move(*made.error));
    // What coverage measured replaces the launch checks' guess.
    apply_measured_coverage(run.measured->coverage, run.report.launch_issues);
    return true;
}

Made<Measured> KernelSession::measure(const ResolvedRun& resolved, const CompiledKernel& compiled,
                                      const RunOptions& options, bool coverage) {
    Made<Measured> made;
    Measured& m = made.product;
    stages_->extra_runs.clear();
    // What the measurements' compiles did: in the product whether or not the measurement succeeded.
    const auto said = [&] {
        for (StageRun& entry : stages_->take_extra_runs()) m.runs.push_back(std::move(entry));
    };
    if (coverage) {
        auto measured = measure_coverage(resolved, compiled.module->module);
        if (!measured) {
            said();
            made.error = measured.error();
            return made;
        }
        m.coverage = std::move(*measured);
        if (options.coverage && options.count_writers) count_writers(resolved, m.coverage);
        said();
    }
    if (options.trace) {
        auto traced = trace_launch(resolved, options.timing);
        said();
        if (!traced) {
            made.error = traced.error();
            return made;
        }
        m.trace = std::move(*traced);
    }
    if (options.memory) {
        auto recorded = record_memory(resolved, options.memory_warps);
        said();
        if (!recorded) {
            made.error = recorded.error();
            return made;
        }
        m.memory = std::move(*recorded);
    }
    return made;
}

// The buffers on the device with their initial contents: allocated when a size changed, uploaded when their
// contents' key changed (an input the kernel cannot write stays from the last run).
bool KernelSession::stage_prepare(RunState& run) {
    PreparedBuffers& prepared = run.prepared.emplace();
    prepared.transfers.pinned = run.options.pinned_host && engine_.capabilities().gpu;
    auto done = prepare_buffers(*run.resolved, run.options, prepared.transfers);
    run.clock.lap(run.report.stages.prepare_ms);
    prepared.runs = stages_->upload_runs;
    for (const auto& [name, b] : buffers_)
        prepared.buffers[name] = PreparedBuffers::Buffer{b.id, b.device_address, b.ipc_handle, b.ipc_offset};
    if (!done) return run.fail(RunStage::Prepare, done.error());
    return true;
}

// A `devices:` file's run from the compiled module on (session_devices.cpp): one part per device, each with
// its own buffers, assembled and checked there, from the report as far as this run got. It ends the run.
bool KernelSession::stage_devices(RunState& run) {
    run.report.transfers.pinned = run.options.pinned_host && engine_.capabilities().gpu;
    const CompileResult& module = *run.compiled->module;
    RunReport report = run_on_devices(*run.resolved, module, run.options, assemble_report(run));
    // Each part's buffers live for one run on its device: nothing of a split is kept for the next run yet.
    if (report.device_split)
        report.stage_runs.push_back({"device parts", false,
                                     std::to_string(report.device_split->parts.size()) +
                                         " part(s): each allocates, uploads, launches and reads back every run"});
    run.report = std::move(report);
    return false;
}

Fingerprint KernelSession::launch_fingerprint(const RunState& run, const LaunchRequest& launch) const {
    const RunOptions& options = run.options;
    const ResolvedRun& resolved = *run.resolved;
    Fingerprint fingerprint;
    const StageRun* compiled = run.compiled && !run.compiled->runs.empty() ? &run.compiled->runs.front() : nullptr;
    fingerprint.add("module",
                    std::to_string(launch.module) + " " + std::to_string(stages_->compiles) + " " + launch.kernel_name,
                    compiled && !compiled->reused ? "recompiled: " + compiled->reason : "module changed");
    for (const auto& [name, value] : resolved.params) fingerprint.add("scalar " + name, value);
    fingerprint.add("grid", launch.grid.str(), "grid changed");
    fingerprint.add("block", launch.block.str(), "block changed");
    fingerprint.add("shared", double(launch.dynamic_shared_bytes), "dynamic shared memory changed");
    for (const ResolvedStep& st : resolved.steps)
        fingerprint.add("step " + step_label(st),
                        st.grid.str() + " " + st.block.str() + " " + std::to_string(st.dynamic_shared_bytes),
                        "steps changed");
    for (const auto& b : kernel_.spec.buffers) {
        const std::string& contents = host_inputs_.at(b.name).key;
        fingerprint.add("input " + b.name, contents, contents_changed(b));
        fingerprint.add("buffer " + b.name, std::to_string(run.prepared->buffers.at(b.name).id),
                        "`" + b.name + "` reallocated");
    }
    fingerprint.add("timing",
                    std::to_string(options.timing.warmup) + " " + std::to_string(options.timing.repeats) +
                        (options.timing.flush_l2 ? " flush" : ""),
                    "timing changed");
    fingerprint.add("thread order", launch.thread_order ? launch.thread_order->str() : "", "thread order changed");
    return fingerprint;
}

// The timed launch of one kernel over the prepared buffers. Every run asked for launches (re-timing, a racy
// lesson's next outcome); the fingerprint says what changed since the last one.
bool KernelSession::stage_launch(RunState& run) {
    const RunOptions& options = run.options;
    auto made_launch = launch_request(*run.resolved, run.compiled->module->module, options.timing, nullptr, nullptr,
                                      &*run.prepared);
    if (!made_launch) return run.fail(RunStage::Prepare, made_launch.error());
    Fingerprint fingerprint = launch_fingerprint(run, *made_launch);
    if (options.before_launch) options.before_launch(run.so_far());
    LaunchOutcome outcome = launch_kernel(std::move(*made_launch), {run_purpose()});
    run.clock.lap(run.report.stages.launch_ms);
    const Launched& launched = run.launched.emplace(record_launch(*run.resolved, std::move(fingerprint), std::move(outcome)));
    if (const std::optional<LaunchFailure>& err = launched.outcome.failure)
        return run.fail(RunStage::Launch, make_error(err->kind, err->named_message(), err->hint));
    return true;
}

// The steps, one launch after another on the same buffers (session_steps.cpp); their time is the run's.
bool KernelSession::stage_launch_steps(RunState& run) {
    const RunOptions& options = run.options;
    if (options.before_launch) options.before_launch(run.so_far());
    Launched steps;
    auto ran = launch_steps(*run.resolved, run.compiled->steps, options.timing, steps);
    if (!ran) {
        run.launched = std::move(steps);
        return run.fail(RunStage::Launch, ran.error());
    }
    run.clock.lap(run.report.stages.launch_ms);
    // The fingerprint of the run's own launch figures (the first step's) with every step's.
    auto made_launch = launch_request(*run.resolved, run.compiled->module->module, options.timing, nullptr, nullptr,
                                      &*run.prepared);
    if (!made_launch) return run.fail(RunStage::Prepare, made_launch.error());
    Launched& launched =
        run.launched.emplace(record_launch(*run.resolved, launch_fingerprint(run, *made_launch), std::move(steps.outcome)));
    launched.steps = std::move(steps.steps);
    return true;
}

LaunchOutcome KernelSession::launch_kernel(LaunchRequest request, LaunchSite site) {
    LaunchOutcome out = launcher_.launch(engine_, std::move(request), site);
    if (out.context_was_reset()) forget_device_state();  // the backend dropped every buffer and module
    return out;
}

StreamsOutcome KernelSession::launch_streams(StreamsRequest request, LaunchSite site) {
    StreamsOutcome out = launcher_.streams(engine_, std::move(request), site);
    if (out.context_was_reset()) forget_device_state();
    return out;
}

Launched KernelSession::record_launch(const ResolvedRun& resolved, Fingerprint fingerprint, LaunchOutcome outcome) {
    Launched launched;
    const std::string why = stages_->launch.why(fingerprint);
    launched.run = stages_->launch.ran(why.empty() ? "run again: nothing it depends on changed" : why);
    stages_->launch.drop("the last launch failed");  // kept again below once it succeeded
    launched.outcome = std::move(outcome);
    if (launched.outcome.failure) return launched;
    stages_->launch.keep(std::move(fingerprint), ++stages_->launches);
    const double median_ms = launched.outcome.timing.median_ms;
    if (median_ms > 0) {
        launched.bandwidth_gbps = double(resolved.traffic_bytes) / (median_ms * 1e-3) / 1e9;
        if (device().copy_bandwidth_gbps > 0) launched.bandwidth_fraction = launched.bandwidth_gbps / device().copy_bandwidth_gbps;
    }
    return launched;
}

namespace {
// What a preview of output `b` asks for (RunOptions::preview_max_width): its image views' size (all the same),
// for pictures of uchars or floats; nullopt for anything else (those come whole).
std::optional<ReadBackRequest::Preview> preview_request(const BufferSpec& b, const std::vector<ResolvedView>& views,
                                                        const RunOptions& options) {
    const ElemTypeInfo& info = elem_info(b.type);
    if (!(info.is_float ? info.component_size == sizeof(float)
                        : info.component_size == 1 && info.name[0] == 'u'))  // uchar..uchar4, float..float4
        return std::nullopt;
    std::optional<ReadBackRequest::Preview> p;
    for (const ResolvedView& v : views) {
        if (v.spec.buffer != b.name || v.spec.kind != ViewSpec::Kind::Image) continue;
        if (!v.problem.empty() || (p && (p->width != uint32_t(v.width) || p->height != uint32_t(v.height))))
            return std::nullopt;
        const uint32_t no_limit = std::numeric_limits<uint32_t>::max();
        p = ReadBackRequest::Preview{uint32_t(v.width),
                                     uint32_t(v.height),
                                     info.components,
                                     info.is_float,
                                     options.preview_max_width ? options.preview_max_width : no_limit,
                                     options.preview_max_height ? options.preview_max_height : no_limit};
    }
    return p;
}
}  // namespace

// The outputs on the host, when a view, the inspector or the check needs them.
bool KernelSession::stage_read_back(RunState& run) {
    Made<ReadBack> made = read_back_outputs(*run.resolved, run.options, *run.prepared);
    run.clock.lap(run.report.stages.read_back_ms);
    run.read_back = std::move(made.product);
    if (made.error) return run.fail(RunStage::Launch, std::move(*made.error));
    return true;
}

// Where the caller allows it (RunOptions::read_back_in_place), outputs only pictures show are handed over where
// they are (the CPU backend's shared memory): a 4K picture is 33 MB to copy on every live re-run.
Made<ReadBack> KernelSession::read_back_outputs(const ResolvedRun& resolved, const RunOptions& options,
                                                const PreparedBuffers& prepared) {
    Made<ReadBack> made;
    ReadBack& out = made.product;
    // The check (now or deferred) and `streams:` (which launches again over the outputs) need copies.
    const bool checked = options.verify && has_check(kernel_.spec);
    const bool in_place_run = options.read_back_in_place && !checked && !resolved.streams;
    // Every launch is a new result, so its outputs always come back (no fingerprint to compare: it would differ).
    // Asked for what is shown only (a compare variant's column): an output no view shows and no check or
    // `streams:` needs stays on the device, and the entry names it.
    const bool shown_only = options.read_back_shown_only && !checked && !resolved.streams;
    const std::vector<ViewSpec> views = shown_views(kernel_.spec);
    std::string left;  // the outputs left on the device
    if (options.read_back) out.run = StageRun{"read back", false, "new launch"};
    for (const auto& b : kernel_.spec.buffers) {
        if (b.direction == Direction::In || !options.read_back) continue;
        // Only what image views show: plots and tables (also the ones shown by default) keep the bytes they get.
        bool pictured = false, kept = false;
        for (const ViewSpec& v : views)
            if (v.buffer == b.name) (v.kind == ViewSpec::Kind::Image ? pictured : kept) = true;
        if (shown_only && !pictured && !kept) {
            left += (left.empty() ? "`" : ", `") + b.name + "`";
            continue;
        }
        const bool in_place = in_place_run && pictured && !kept;
        ReadBackRequest request{prepared.buffers.at(b.name).id, options.pinned_host, in_place};
        // The same outputs may come as previews where the backend makes them (a remote worker; the others ignore
        // the request and answer every element).
        const bool preview_run = options.preview_max_width > 0 || options.preview_max_height > 0;
        if (preview_run && !checked && !resolved.streams && pictured && !kept)
            request.preview = preview_request(b, resolved.views, options);
        ReadBackResult rb = engine_.read_back(request);
        if (rb.error) {
            if (rb.error->context_was_reset) forget_device_state();  // a lost remote worker: nothing of it is left
            made.error = make_error(rb.error->kind, "could not read back `" + b.name + "`: " + rb.error->message);
            break;
        }
        if (rb.in_place) {
            out.in_place[b.name] = RunReport::InPlaceOutput{b.type, rb.in_place, rb.in_place_bytes};
            continue;
        }
        out.download_ms += rb.elapsed_ms;
        out.downloads++;
        out.download_bytes += rb.data.size();
        if (rb.preview_width > 0 && request.preview) {
            out.previews[b.name] = RunReport::PreviewOutput{b.type,
                                                            int(rb.preview_width),
                                                            int(rb.preview_height),
                                                            int(request.preview->width),
                                                            int(request.preview->height),
                                                            std::move(rb.data)};
            continue;
        }
        out.outputs[b.name] = HostBuffer{b.name, b.type, std::move(rb.data)};
    }
    if (!left.empty() && out.run) out.run->reason += "; not shown or checked, left on the device: " + left;
    return made;
}

Result<HostBuffer> KernelSession::read_output(const std::string& name) {
    const BufferSpec* spec = kernel_.buffer(name);
    const auto held = buffers_.find(name);
    if (!spec || spec->direction == Direction::In || held == buffers_.end())
        return make_error(ErrorKind::UserInput, "`" + name + "` is not an output of the last run",
                          "run the kernel first; only out and inout buffers are read back");
    ReadBackResult rb = engine_.read_back({held->second.id, false, false});
    if (rb.error) {
        if (rb.error->context_was_reset) forget_device_state();
        return make_error(rb.error->kind, "could not read back `" + name + "`: " + rb.error->message, rb.error->hint);
    }
    return HostBuffer{name, spec->type, std::move(rb.data)};
}

// `streams:` (session_streams.cpp): the launch again in chunks on streams, over the same module and buffers; its
// outputs are the ones checked.
bool KernelSession::stage_streams(RunState& run) {
    if (!run.resolved->streams) return true;
    // Its chunks' copies are what it times, so every run sends them again (no stage product to keep).
    const ResolvedStreams& st = *run.resolved->streams;
    Streamed& streamed = run.streamed.emplace();
    streamed.run = {"streams", false,
                    std::to_string(st.chunks) + " chunks on " + std::to_string(st.streams) +
                        " streams: each copies its part in and out"};
    auto report = run_streams(*run.resolved, run.compiled->module->module, streamed);
    run.clock.lap(run.report.stages.launch_ms);
    if (!report) {
        streamed.outputs.clear();
        return run.fail(RunStage::Launch, report.error());
    }
    streamed.report = std::move(*report);
    return true;
}

// The check against the CPU reference: now, deferred (the window shows the picture first and checks after,
// KernelSession::check), or not at all, with the reason in the report.
bool KernelSession::stage_check(RunState& run) {
    const RunOptions& options = run.options;
    RunReport& report = run.report;
    const ResolvedRun& resolved = *run.resolved;
    const KernelSpec& spec = kernel_.spec;
    if (!options.verify && has_check(spec) && !resolved.stopped_early()) {
        report.not_checked = !options.skipped_check_reason.empty()
                                 ? options.skipped_check_reason
                                 : "this run skipped the check (F5 in the window checks it; `run` checks unless --no-verify)";
        report.not_checked_why = options.skipped_check_why;
    }
    if (!options.read_back) {
        if (run.streamed) run.streamed->outputs.clear();
        return false;
    }
    if (resolved.stopped_early()) {  // said whether or not this run asked for the check
        report.not_checked = "shown after step " + std::to_string(resolved.steps.size()) + " of " +
                             std::to_string(resolved.steps_in_file) +
                             ": the check compares the result of the last step, so it did not run";
        report.not_checked_why = NotCheckedWhy::StoppedEarly;
    } else if (options.verify && has_check(spec) && options.defer_check) {
        report.check_pending = true;
    } else if (options.verify && has_check(spec)) {
        // The outputs read back, with a streamed run's in their place.
        run.checked = check_outputs(resolved, run.read_back->outputs, run.streamed ? &run.streamed->outputs : nullptr);
    }
    run.clock.lap(report.stages.check_ms);
    return true;
}

Result<LaunchRequest> KernelSession::launch_request(const ResolvedRun& resolved, ModuleId module,
                                                     const TimingOptions& timing, const KernelSignature* signature,
                                                     const ResolvedStep* step, const PreparedBuffers* prepared) const {
    const KernelSignature& sig = signature ? *signature : *kernel_.signature;
    LaunchRequest launch;
    launch.module = module;
    launch.kernel_name = sig.launch_name;
    launch.grid = step ? step->grid : resolved.grid;
    launch.block = step ? step->block : resolved.block;
    launch.dynamic_shared_bytes = step ? step->dynamic_shared_bytes : resolved.dynamic_shared_bytes;
    launch.timing = timing;
    if (choices_.thread_order && engine_.capabilities().thread_order) launch.thread_order = choices_.thread_order;
    auto args = kernel_args(sig, resolved.params, [&](const std::string& name) {
        const BufferSpec* b = kernel_.buffer(name);
        return BufferArg{prepared ? prepared->buffers.at(name).id : buffers_.at(name).id,
                         b ? b->offset * elem_info(b->type).size : 0};
    });
    if (!args) return args.error();
    launch.args = std::move(*args);
    return launch;
}

namespace {

// An output as checked: the streamed run's where it made one (`replaced`), else the one read back; null when neither.
const HostBuffer* output_to_check(const std::map<std::string, HostBuffer>& outputs,
                                  const std::map<std::string, HostBuffer>* replaced, const std::string& name) {
    if (replaced)
        if (auto r = replaced->find(name); r != replaced->end()) return &r->second;
    const auto o = outputs.find(name);
    return o == outputs.end() ? nullptr : &o->second;
}

// One output compared with what it should hold, into `checked` (its error map; the first mismatch's words when it is
// the first output that differs). Whether it matched.
bool add_comparison(Checked& checked, const std::string& name, const HostBuffer& got, const HostBuffer& want,
                    double tolerance) {
    Comparison c = compare_buffers(got, want, tolerance, true);
    checked.max_abs_error = std::max(checked.max_abs_error, c.max_abs_error);
    checked.mismatches += c.mismatches;
    checked.mismatched_elements += c.mismatched_elements;
    ErrorMap map;
    map.buffer = name;
    map.elements = got.count();
    map.mismatched_elements = c.mismatched_elements;
    map.mismatched_components = c.mismatched_components;
    map.abs_error = std::move(c.abs_error);
    map.tolerance = tolerance;
    map.max_abs_error = c.max_abs_error;
    map.first_mismatches = c.first_mismatches;
    checked.error_maps.push_back(std::move(map));
    if (!c.ok && checked.mismatch_detail.empty()) checked.mismatch_detail = c.detail;
    return c.ok;
}

}  // namespace

// Compares `outputs` with the file's `result` lines: the outputs a program's launch left, recorded with the inputs
// its `data("...")` lines hold (program_lesson.h). They hold for the params' written values only: with another
// value the run is not judged, and says why.
Checked KernelSession::check_recorded(const ResolvedRun& resolved, const std::map<std::string, HostBuffer>& outputs,
                                      const std::map<std::string, HostBuffer>* replaced) const {
    Checked checked;
    checked.recorded = true;
    const KernelSpec& spec = kernel_.spec;
    if (!resolved.params_off_record.empty()) {
        checked.not_checked = "the recorded results hold for the parameters as the header writes them, and " +
                              join(resolved.params_off_record, ", ") + "; set them back to check";
        checked.not_checked_why = NotCheckedWhy::OffRecord;
        return checked;
    }
    checked.runs.push_back({"check", false, "new result"});
    bool all_ok = true;
    for (const ResultSpec& r : spec.results) {
        const HostBuffer* got = output_to_check(outputs, replaced, r.buffer);
        if (!got) continue;
        const DataFile& file = resolved.results.at(r.buffer);
        if (file.bytes->size() != got->bytes.size()) {
            const uint32_t size = elem_info(got->type).size;
            checked.error = make_error(ErrorKind::UserInput,
                                       "`result " + r.buffer + "`'s file `" + r.file + "` holds " +
                                           std::to_string(file.bytes->size() / size) + " elements, and the buffer " +
                                           std::to_string(got->count()),
                                       "the result holds for the buffer's recorded size: give `" + r.buffer +
                                           "` that count again, or remove the `result` line");
            return checked;
        }
        HostBuffer want{r.buffer, got->type, *file.bytes};
        all_ok = add_comparison(checked, r.buffer, *got, want, spec.tolerance) && all_ok;
    }
    checked.verified = all_ok;
    return checked;
}

// Compares `outputs` (those in `replaced` in their place) with what the file's CPU reference computes from the same initial contents. The expected
// outputs are kept while the reference, its params and its inputs stay the same (live re-runs).
Checked KernelSession::check_outputs(const ResolvedRun& resolved, const std::map<std::string, HostBuffer>& outputs,
                                     const std::map<std::string, HostBuffer>* replaced) {
    const KernelSpec& spec = kernel_.spec;
    if (!spec.results.empty()) return check_recorded(resolved, outputs, replaced);
    Checked checked;
    Fingerprint fingerprint;
    fingerprint.add("reference", spec.reference + "\n" + reference_section(kernel_.source), "reference changed");
    for (const auto& [name, value] : resolved.params) fingerprint.add("scalar " + name, value);
    for (const auto& b : spec.buffers) {
        fingerprint.add("input " + b.name, std::string(direction_name(b.direction)) + ":" + host_inputs_.at(b.name).key,
                        contents_changed(b));
    }
    Stage<std::map<std::string, HostBuffer>>& stage = stages_->reference;
    const std::map<std::string, HostBuffer>* expected = stage.reusable(fingerprint);
    if (expected) {
        checked.runs.push_back(stage.reused());
    } else {
        checked.runs.push_back(stage.ran(stage.why(fingerprint)));
        stage.drop("the reference failed");
        if (!reference_) reference_ = std::make_unique<FileReference>();
        std::map<std::string, const HostBuffer*> initial;
        for (const auto& b : spec.buffers) initial[b.name] = &host_inputs_.at(b.name).host;
        ReferenceOutcome outcome = reference_->compute(kernel_, resolved.params, initial);
        checked.reference_ms = outcome.run_ms;
        checked.diagnostics = std::move(outcome.diagnostics);
        if (outcome.error) {
            checked.error = std::move(*outcome.error);
            return checked;
        }
        expected = &stage.keep(std::move(fingerprint), std::move(outcome.expected));
    }
    // The comparison: once per result (a run's, or a deferred check's), never skipped.
    checked.runs.push_back({"check", false, "new result"});
    bool all_ok = true;
    for (const auto& [name, want] : *expected) {
        const HostBuffer* got = output_to_check(outputs, replaced, name);
        if (!got) continue;
        all_ok = add_comparison(checked, name, *got, want, spec.tolerance) && all_ok;
    }
    checked.verified = all_ok;
    return checked;
}

}  // namespace cp
