// JSON for run reports, diagnostics and resource usage (nlohmann::json kept inside core).
#include "core/session/report_json.h"

#include "core/engine/device_info_json.h"
#include "core/session/device_split_check.h"
#include "core/session/report_text.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace cp {

namespace {

using nlohmann::json;


json diag_array(const std::vector<Diagnostic>& diags) {
    json a = json::array();
    for (const auto& d : diags) {
        a.push_back({{"file", d.file}, {"line", d.line}, {"column", d.column},
                     {"severity", severity_name(d.severity)}, {"message", d.message}});
    }
    return a;
}

json usage_object(const ResourceUsage& u) {
    auto v = [](int x) { return x < 0 ? json(nullptr) : json(x); };
    return json{{"registers", v(u.registers)},          {"static_shared_bytes", v(u.static_shared_bytes)},
                {"local_bytes", v(u.local_bytes)},      {"spill_store_bytes", v(u.spill_store_bytes)},
                {"spill_load_bytes", v(u.spill_load_bytes)}, {"constant_bytes", v(u.constant_bytes)},
                {"max_threads_per_block", v(u.max_threads_per_block)}, {"barriers", v(u.barriers)}};
}

// The verdict as one state (the window shows the same): a script need not combine the keys of the check.
json check_json(const RunReport& r) {
    const CheckState state = check_state(r);
    std::string text = verdict_text(r, VerdictOf::Run, false);
    if (state == CheckState::NotRun)  // the window shows no verdict then; a script reading `text` gets why
        text = r.error ? std::string("Not checked: the run stopped at its ") + run_stage_name(r.failed_stage) +
                             " stage, before the kernel's outputs could be checked (see `error`)."
                       : "Not checked: the kernel was not run (" +
                             (r.backend.empty() ? std::string("this backend") : "the " + r.backend + " backend") +
                             " compiles kernels but cannot launch them).";
    json check = {{"state", check_state_name(state)}, {"text", text},
                  {"against", r.checked_against_recording ? "recorded_result" : "cpu_reference"}};
    if (const std::string why = not_checked_reason(r); !why.empty()) check["reason"] = why;
    uint64_t never_written = 0;
    for (const CoverageMap& c : r.coverage) never_written += c.never_written;
    if (!r.coverage.empty()) check["never_written"] = never_written;
    return check;
}

json error_maps_json(const std::vector<ErrorMap>& maps) {
    json errors = json::array();
    for (const ErrorMap& m : maps)
        errors.push_back({{"buffer", m.buffer}, {"elements", m.elements}, {"mismatched_elements", m.mismatched_elements},
                          {"mismatched_components", m.mismatched_components}, {"tolerance", m.tolerance},
                          {"max_abs_error", m.max_abs_error}, {"first_mismatches", m.first_mismatches}});
    return errors;
}

json coverage_json(const std::vector<CoverageMap>& maps) {
    json cov = json::array();
    for (const CoverageMap& c : maps) {
        json one = {{"buffer", c.buffer}, {"elements", c.elements}, {"summary", c.summary()}};
        if (c.not_measured.empty()) one["never_written"] = c.never_written;
        else one["not_measured"] = c.not_measured;
        if (c.writers_counted) {
            one["written_more_than_once"] = c.written_more_than_once;
            one["max_writers"] = c.max_writers;
            one["counting_launch_ms"] = c.counting_launch_ms;
        } else if (!c.writers_not_measured.empty()) {
            one["written_more_than_once_not_measured"] = c.writers_not_measured;
        }
        cov.push_back(one);
    }
    return cov;
}

json trace_json(const LaunchTrace& trace) {
    json blocks = json::array();
    const bool sm = trace.unit == "sm";
    for (const BlockTrace& b : trace.blocks)
        blocks.push_back({{"block", b.block}, {sm ? "sm" : "worker", b.unit}, {"start_ns", b.start_ns}, {"end_ns", b.end_ns}});
    return json{{"unit", trace.unit}, {"units_used", trace.units_used},
                {"instrumented_median_ms", trace.timing.median_ms}, {"blocks", blocks}};
}

// The recording launch's per-line figures (memory_figures.h): one entry per line, space and load/store.
json memory_lines_json(const MemoryRecording& m) {
    json lines = json::array();
    for (const MemoryFigures& f : m.figures)
        lines.push_back({{"line", f.line},
                         {"space", memory_space_name(f.space)},
                         {"op", f.store ? "store" : "load"},
                         {"requests", f.requests},
                         {"sectors", f.sectors},
                         {"ideal_sectors", f.ideal_sectors},
                         {"bank_conflicts", f.bank_conflicts},
                         {"active_lanes_mean", f.active_lanes_mean()}});
    return lines;
}

json memory_recording_json(const MemoryRecording& m) {
    return json{{"note", memory_recording_note(m)},
                {"accesses", m.accesses},
                {"access_cap", m.access_cap},
                {"capped", m.capped},
                {"blocks_recorded", m.blocks_recorded},
                {"blocks_total", m.blocks_total},
                {"recording_ms", m.ms}};
}

// `streams:`: the chunked run's operations (times from its first operation) and its totals.
json streams_json(const StreamsReport& s) {
    json ops = json::array(), lanes = json::array();
    for (const StreamOp& op : s.ops)
        ops.push_back({{"stream", op.stream}, {"chunk", op.chunk}, {"kind", stream_op_name(op.kind)},
                       {"start_ms", op.start_ms}, {"end_ms", op.end_ms}, {"bytes", op.bytes}});
    for (const auto& lane : s.lanes) lanes.push_back(lane);
    return json{{"streams", s.streams},
                {"chunks", s.chunks},
                {"param", s.param},
                {"elements", s.elements},
                {"total_ms", s.total_ms},
                {"one_stream_ms", s.one_stream_ms},
                {"gained_ms", s.gained_ms()},
                {"copy_kernel_overlap_ms", s.copy_kernel_overlap_ms()},
                {"concurrent", s.concurrent},
                {"measured_by", s.host_clock ? "host clock (operations run one after another)" : "cuda events"},
                {"ops", ops},
                {"lanes", lanes}};
}

// A file with steps: each one's launch and time (the run's timing is one pass over all of them).
json steps_json(const RunReport& r) {
    json steps = json::array();
    for (const ResolvedStep& s : r.resolved->steps) {
        json one = {{"index", s.index}, {"kernel", s.kernel}, {"line", s.line}, {"grid", dim3_json(s.grid)},
                    {"block", dim3_json(s.block)}, {"dynamic_shared_bytes", s.dynamic_shared_bytes},
                    {"repeat", s.repeat}, {"launched", false}};
        for (const StepReport& done : r.steps) {
            if (done.index != s.index || done.timing.samples_ms.empty()) continue;
            one["launched"] = true;
            one["launch_median_ms"] = done.timing.median_ms;
            one["launch_min_ms"] = done.timing.min_ms;
            one["launch_max_ms"] = done.timing.max_ms;
            one["total_ms"] = done.total_ms;
            one["resources"] = usage_object(done.usage);
        }
        steps.push_back(one);
    }
    return steps;
}

// Where the run's time went.
json transfers_json(const TransferTimes& t) {
    return json{{"allocate_ms", t.allocate_ms}, {"allocations", t.allocations},
                {"allocated_bytes", t.allocated_bytes},
                {"host_to_device_ms", t.upload_ms}, {"host_to_device_copies", t.uploads},
                {"host_to_device_bytes", t.upload_bytes},
                {"host_to_device_ms_per_copy", t.uploads > 0 ? t.upload_ms / t.uploads : 0.0},
                {"kernel_ms", t.kernel_ms},
                {"device_to_host_ms", t.download_ms}, {"device_to_host_copies", t.downloads},
                {"device_to_host_bytes", t.download_bytes},
                {"total_ms", t.total_ms()},
                {"host_memory", t.pinned ? "pinned" : "pageable"},
                {"measured_by", "host clock around each copy; kernel: median launch"}};
}

// A `devices:` file: each device's part and times, the split's wall time and the one-device time.
json devices_json(const DeviceSplitReport& s) {
    auto part_object = [](const DevicePart& p) {
        const TransferTimes& pt = p.times;
        return json{{"ordinal", p.ordinal}, {"name", p.name}, {"begin", p.begin}, {"end", p.end},
                    {"elements", p.end - p.begin}, {"grid", dim3_json(p.grid)},
                    {"allocate_ms", pt.allocate_ms}, {"host_to_device_ms", pt.upload_ms},
                    {"kernel_ms", pt.kernel_ms}, {"device_to_host_ms", pt.download_ms}, {"total_ms", pt.total_ms()}};
    };
    json parts = json::array();
    for (const DevicePart& p : s.parts) parts.push_back(part_object(p));
    return json{{"over", s.param}, {"elements", s.total}, {"devices_here", s.devices_here},
                {"devices_used", s.devices_used}, {"kind", s.gpu ? "gpu" : "cpu worker"},
                {"parts", parts}, {"split_wall_ms", s.split_ms}, {"one_device_wall_ms", s.one_device_ms},
                {"one_device", part_object(s.one_device)}, {"speedup", s.speedup()},
                {"slowest_device_total_ms", s.slowest_part_ms()}, {"stage_speedup", s.stage_speedup()},
                {"speedup_meaningful", speedup_meaningful(s)},
                {"speedup_caveat", speedup_caveat(s).empty() ? json(nullptr) : json(speedup_caveat(s))},
                {"top_level_times", top_lines_are_split(s) ? "split" : "one device"},
                {"summary", s.summary()},
                {"measured_by", "host clock around all devices' work (allocation, copies, timed launches, "
                "read-backs), run concurrently; one_device: the same on the first device alone"}};
}

}  // namespace

std::string json_text(const json& j) { return j.dump(2, ' ', false, json::error_handler_t::replace); }

json run_report_json(const RunReport& r, const std::vector<std::filesystem::path>& written_files) {
    json j;
    j["schema_version"] = kRunReportSchemaVersion;
    j["kernel"] = r.kernel;
    j["title"] = r.title;
    j["backend"] = r.backend;
    j["device"] = r.device;
    // The resolved run: null when the run stopped before it was resolved.
    j["grid"] = r.resolved ? dim3_json(r.resolved->grid) : json(nullptr);
    j["block"] = r.resolved ? dim3_json(r.resolved->block) : json(nullptr);
    if (r.resolved && r.resolved->thread_order) j["thread_order"] = r.resolved->thread_order->str();
    j["dynamic_shared_bytes"] = r.resolved ? json(r.resolved->dynamic_shared_bytes) : json(nullptr);
    // An int or unsigned parameter as an integer (1000003, not 1000003.0), a float or double one as a number.
    json params = json::object();
    if (r.resolved)
        for (const auto& [name, v] : r.resolved->params)
            params[name] = r.resolved->whole_params.count(name) && std::abs(v) < 9.0e15 ? json(int64_t(std::llround(v)))
                                                                                       : json(v);
    j["params"] = params;
    if (r.resolved) {
        json counts = json::object();
        for (const auto& [name, n] : r.resolved->buffer_counts) counts[name] = n;
        j["buffer_counts"] = counts;
    }
    json refused = json::array();
    for (const InputProblem& p : r.input_problems)
        refused.push_back({{"field", p.field}, {"message", p.error.message}, {"hint", p.error.hint}});
    j["refused_choices"] = refused;
    // Per stage, in order, whether it redid its work or reused an earlier run's product, and why.
    json stages = json::array();
    for (const StageRun& s : r.stage_runs)
        stages.push_back({{"stage", s.stage}, {"reused", s.reused}, {"reason", s.reason}});
    j["stages"] = std::move(stages);
    j["verified"] = r.verified ? json(*r.verified) : json(nullptr);
    if (!r.not_checked.empty()) j["not_checked"] = r.not_checked;
    j["check"] = check_json(r);
    j["max_abs_error"] = r.max_abs_error;
    j["mismatches"] = r.mismatches;
    j["mismatch_detail"] = r.mismatch_detail;
    j["mismatched_elements"] = r.mismatched_elements;
    j["error_maps"] = error_maps_json(r.error_maps);
    if (!r.coverage.empty()) j["coverage"] = coverage_json(r.coverage);
    if (r.trace) j["trace"] = trace_json(*r.trace);
    if (r.memory) {
        j["memory"] = memory_lines_json(*r.memory);
        j["memory_recording"] = memory_recording_json(*r.memory);
    }
    if (r.streams) j["streams"] = streams_json(*r.streams);
    // A buggy-on-purpose lesson: what it must show, what it showed, and whether that is as expected.
    j["expect"] = r.expect.empty() ? json(nullptr) : json(r.expect);
    j["learn"] = r.learn.empty() ? json(nullptr) : json(r.learn);
    j["outcome"] = r.outcome.empty() ? json(nullptr) : json(r.outcome);
    j["as_expected"] = r.as_expected ? json(*r.as_expected) : json(nullptr);
    j["timing"] = r.launched ? json{{"min_ms", r.timing.min_ms},
                                    {"median_ms", r.timing.median_ms},
                                    {"max_ms", r.timing.max_ms},
                                    {"repeats", r.timing.samples_ms.size()},
                                    {"samples_ms", r.timing.samples_ms},
                                    {"measured_by", r.timing.cpu_time ? "cpu wall clock (CPU backend)" : "cuda events"}}
                             : json(nullptr);
    if (r.resolved && !r.resolved->steps.empty()) {
        j["steps"] = steps_json(r);
        j["steps_in_file"] = r.resolved->steps_in_file;
    }
    // Where the run's time went: null when it was not launched.
    j["transfers"] = r.launched ? transfers_json(r.transfers) : json(nullptr);
    if (r.device_split) j["devices"] = devices_json(*r.device_split);
    j["bandwidth_gbps"] = r.launched ? json(r.bandwidth_gbps) : json(nullptr);
    j["bandwidth_fraction_of_copy"] = r.launched && r.bandwidth_fraction > 0 ? json(r.bandwidth_fraction) : json(nullptr);
    j["printf"] = r.printf_output;
    j["diagnostics"] = diag_array(r.diagnostics);
    json warnings = json::array();
    for (const auto& issue : r.launch_issues) {
        if (issue.severity != Severity::Error) warnings.push_back(issue.message);
    }
    j["launch_warnings"] = warnings;
    // The same checks as data (a refusal's too), for scripts to decide on: which limit, the figure against it,
    // and the block and grid the message suggests.
    json issues = json::array();
    for (const auto& issue : r.launch_issues) {
        issues.push_back({{"severity", issue.severity == Severity::Error ? "error" : "warning"},
                          {"setting", launch_setting_name(issue.setting)},
                          {"limit", issue.limit},
                          {"message", issue.message},
                          {"value", issue.value},
                          {"maximum", issue.maximum},
                          {"try_block", issue.try_block ? dim3_json(*issue.try_block) : json(nullptr)},
                          {"try_grid", issue.try_grid ? dim3_json(*issue.try_grid) : json(nullptr)}});
    }
    j["launch_issues"] = issues;
    j["resources"] = usage_object(r.usage);
    j["compile"] = {{"cache_hit", r.cache_hit}, {"ms", r.compile_ms}};
    j["error"] = r.error ? json{{"stage", run_stage_name(r.failed_stage)},
                                {"message", r.error->message},
                                {"hint", r.error->hint}}
                         : json(nullptr);
    if (r.error && r.error_line > 0) j["error"]["line"] = r.error_line;
    if (r.error && r.error_thread) j["error"]["thread"] = dim3_json(*r.error_thread);
    if (r.error && r.error_block) j["error"]["block"] = dim3_json(*r.error_block);
    // What kind of failure it was (result.h's error_kind_name): scripts decide on this, not on the message.
    j["error_kind"] = r.error ? json(error_kind_name(r.error->kind)) : json(nullptr);
    json files = json::array();
    for (const auto& f : written_files) files.push_back(f.string());
    j["outputs"] = files;
    return j;
}

json diagnostics_json(const std::vector<Diagnostic>& diagnostics) { return diag_array(diagnostics); }
json usage_json(const ResourceUsage& usage) { return usage_object(usage); }

}  // namespace cp
