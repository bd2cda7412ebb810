// KernelSession's measurements beyond the run itself: coverage (two launches over sentinel-filled outputs),
// the trace (an instrumented launch recording per block where and when it ran) and the memory recording (a
// launch of the copy that records every load and store: per-line sectors, bank conflicts, active lanes). All run
// before the run's own launch, which starts from fresh buffers again, so what the window shows is never a measuring
// launch's output.
#include "core/kernel_file/constant_fill.h"
#include "core/session/coverage.h"
#include "core/session/report_text.h"
#include "core/session/run_stage.h"
#include "core/session/session.h"

#include <set>

namespace cp {

Result<std::vector<CoverageMap>> KernelSession::measure_coverage(const ResolvedRun& resolved, ModuleId module) {
    std::vector<CoverageMap> maps;
    std::map<std::string, std::vector<std::byte>> first;
    const TimingOptions once{0, 1, false};
    for (int pass = 0; pass < 2; ++pass) {
        if (auto prepared = prepare_buffers(resolved); !prepared) return prepared.error();
        for (const auto& b : kernel_.spec.buffers) {
            if (b.direction != Direction::Out) continue;
            UploadResult u = engine_.upload({buffers_.at(b.name).id, coverage_sentinel(elem_info(b.type).size, pass), true});
            if (u.error)
                return make_error(u.error->kind,
                                  "could not fill `" + b.name + "` for the coverage measurement: " + u.error->message);
        }
        auto launch = launch_request(resolved, module, once);
        if (!launch) return launch.error();
        const LaunchOutcome launched = launch_kernel(std::move(*launch), {LaunchPurpose::Coverage, pass});
        if (const std::optional<LaunchFailure>& err = launched.failure)
            return make_error(err->kind, "the coverage measurement's launch failed: " + err->message, err->hint);
        for (const auto& b : kernel_.spec.buffers) {
            if (b.direction != Direction::Out) continue;
            ReadBackResult rb = engine_.read_back({buffers_.at(b.name).id});
            if (rb.error)
                return make_error(rb.error->kind, "could not read back `" + b.name + "`: " + rb.error->message);
            if (pass == 0) first[b.name] = std::move(rb.data);
            else maps.push_back(count_unwritten(b.name, elem_info(b.type).size, first[b.name], rb.data));
        }
    }
    for (const auto& b : kernel_.spec.buffers) {
        if (b.direction != Direction::InOut) continue;
        CoverageMap map;
        map.buffer = b.name;
        map.elements = resolved.buffer_counts.at(b.name);
        map.not_measured = "an inout buffer: the kernel reads its contents, so they cannot be replaced by a sentinel";
        maps.push_back(std::move(map));
    }
    return maps;
}

Result<LaunchTrace> KernelSession::trace_launch(const ResolvedRun& resolved, const TimingOptions& timing) {
    ModuleId module = compile().module;
    if (engine_.capabilities().trace_needs_instrumented_module) {
        CompileRequest request = plain_request();
        request.also_kernels.clear();
        request.instrument_trace = true;
        const CompileResult& traced = compile_extra("traced", "compile trace", std::move(request));
        if (!traced.ok || traced.module == 0) {
            const std::string why = compile_failure_text(traced);
            return make_error(ErrorKind::Unsupported,
                              "the instrumented kernel for the trace could not be built: " + why,
                              "run without --trace; the kernel itself is unaffected");
        }
        module = traced.module;
    }
    if (auto prepared = prepare_buffers(resolved); !prepared) return prepared.error();
    auto launch = launch_request(resolved, module, timing);
    if (!launch) return launch.error();
    launch->trace = true;
    LaunchOutcome launched = launch_kernel(std::move(*launch), {LaunchPurpose::Trace});
    if (const std::optional<LaunchFailure>& err = launched.failure)
        return make_error(err->kind, "the traced launch failed: " + err->message, err->hint);
    LaunchTrace trace;
    trace.unit = launched.trace_unit;
    trace.blocks = std::move(launched.trace);
    trace.timing = launched.timing;
    std::set<uint32_t> units;
    for (const auto& b : trace.blocks) units.insert(b.unit);
    trace.units_used = uint32_t(units.size());
    return trace;
}

Result<MemoryRecording> KernelSession::record_memory(const ResolvedRun& resolved, const std::vector<WarpId>& warps) {
    // The CPU and CUDA backends record (a backend that cannot compiles the plain kernel and answers no
    // recording: refused below, after its launch).
    const std::string backend = engine_.device().backend;
    CompileRequest request = plain_request();
    request.also_kernels.clear();
    request.instrument_memory = true;
    const CompileResult& recording = compile_extra("memory", "compile memory", std::move(request));
    if (!recording.ok || recording.module == 0) {
        const std::string why = compile_failure_text(recording);
        return make_error(ErrorKind::Unsupported, "the recording copy of the kernel could not be built: " + why,
                          "run without --memory; the kernel itself is unaffected");
    }
    if (auto prepared = prepare_buffers(resolved); !prepared) return prepared.error();
    auto launch = launch_request(resolved, recording.module, TimingOptions{0, 1, false});
    if (!launch) return launch.error();
    launch->record_memory = true;
    launch->memory_warps = {WarpId{0, 0}};  // the first warp always: the picture has one to show at once
    for (const WarpId& w : warps)
        if (!(w == WarpId{0, 0})) launch->memory_warps.push_back(w);
    LaunchOutcome launched = launch_kernel(std::move(*launch), {LaunchPurpose::Memory});
    if (const std::optional<LaunchFailure>& err = launched.failure)
        return make_error(err->kind, "the recording launch failed: " + err->message, err->hint);
    if (!launched.memory) {
        if (backend == "cpu")
            return make_error(ErrorKind::Unsupported,
                              "this build of the CPU backend cannot record accesses (it needs GCC, and per-access "
                              "checks on: CUDA_PLAYGROUND_CPU_ACCESS_CHECKS not 0)",
                              "set CXX=g++ and run again");
        return make_error(ErrorKind::Unsupported,
                          "the " + (backend.empty() ? std::string("current") : backend) +
                              " backend cannot record memory accesses (the CPU and CUDA backends can)",
                          "run with --backend cpu or --backend cuda");
    }
    return std::move(*launched.memory);
}

Result<BlockDebugRun> KernelSession::record_block(const ResolvedRun& resolved, uint64_t block, int32_t warp) {
    const std::string backend = engine_.device().backend;
    if (!engine_.device().caps.debug_steps)
        return make_error(ErrorKind::Unsupported,
                          "the " + (backend.empty() ? std::string("current") : backend) +
                              " backend cannot step through a block (the CPU backend can)",
                          "run with --backend cpu: it runs the same source with every thread on the CPU");
    CompileRequest request = plain_request();
    request.also_kernels.clear();
    request.instrument_debug = true;
    request.instrument_memory = true;  // where the backend can: every access too (shared writers, touched elements)
    const CompileResult& stepping = compile_extra("debug", "compile debug", std::move(request));
    if (!stepping.ok || stepping.module == 0) {
        const std::string why = compile_failure_text(stepping);
        return make_error(ErrorKind::Compile, "the stepping copy of the kernel could not be built: " + why,
                          "the kernel itself is unaffected; run it without the debugger");
    }
    if (auto prepared = prepare_buffers(resolved); !prepared) return prepared.error();
    auto launch = launch_request(resolved, stepping.module, TimingOptions{0, 1, false});
    if (!launch) return launch.error();
    if (block >= launch->grid.count())
        return make_error(ErrorKind::UserInput,
                          "block " + std::to_string(block) + " is not in the grid of " +
                              std::to_string(launch->grid.count()) + " blocks",
                          "pick a block inside the grid (x, y, z each below the grid's)");
    launch->debug_block = block;
    launch->debug_warp = warp;
    LaunchOutcome launched = launch_kernel(std::move(*launch), {LaunchPurpose::Debug});
    if (launched.debug) {
        // A block that failed is still worth stepping up to where it stopped: the recording, and why it stopped.
        BlockDebugRun run;
        run.recording = std::move(*launched.debug);
        run.failure = std::move(launched.failure);
        return run;
    }
    if (const std::optional<LaunchFailure>& err = launched.failure)  // a mistake in what was asked is said as it is
        return make_error(err->kind, (err->kind == ErrorKind::UserInput ? "" : "the stepping launch failed: ") + err->message,
                          err->hint);
    return make_error(ErrorKind::Internal, "the backend answered the stepping launch without a recording", "");
}

}  // namespace cp
