// KernelSession::run: metadata check, resolve, compile, validate, buffers, launch, read back, verify. Every
// stage that fails ends the run with a report saying where and why; nothing throws.
#include "core/session/references.h"
#include "core/session/session.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace cp {
namespace {

// Bytes of a scalar kernel argument as the signature declares it.
Result<std::vector<std::byte>> scalar_bytes(const std::string& base_type, double value) {
    auto pack = [](auto v) {
        std::vector<std::byte> b(sizeof(v));
        std::memcpy(b.data(), &v, sizeof(v));
        return b;
    };
    const std::string& t = base_type;
    if (t == "int" || t == "int32_t" || t == "signed" || t == "signed int") return pack(int32_t(std::llround(value)));
    if (t == "unsigned" || t == "unsigned int" || t == "uint" || t == "uint32_t")
        return pack(uint32_t(std::llround(value)));
    if (t == "float") return pack(float(value));
    if (t == "double") return pack(value);
    if (t == "long long" || t == "int64_t" || t == "long" || t == "ptrdiff_t") return pack(int64_t(std::llround(value)));
    if (t == "unsigned long long" || t == "uint64_t" || t == "size_t" || t == "unsigned long")
        return pack(uint64_t(std::llround(value)));
    if (t == "bool") return pack(bool(value != 0));
    if (t == "char" || t == "signed char") return pack(int8_t(std::llround(value)));
    if (t == "unsigned char" || t == "uchar" || t == "uint8_t") return pack(uint8_t(std::llround(value)));
    if (t == "short" || t == "int16_t") return pack(int16_t(std::llround(value)));
    if (t == "unsigned short" || t == "ushort" || t == "uint16_t") return pack(uint16_t(std::llround(value)));
    return make_error("kernel parameter type `" + t + "` cannot be set from the playground",
                      "use int, unsigned int, float, double, long long or size_t for scalar parameters");
}

}  // namespace

RunReport KernelSession::run(const RunOptions& options) {
    RunReport report;
    const KernelSpec& spec = kernel_.spec;
    report.kernel = kernel_.signature ? kernel_.signature->launch_name : std::string();
    report.title = spec.title.empty() ? report.kernel : spec.title;
    report.backend = device().backend;
    report.device = device().name;
    report.diagnostics = kernel_.diagnostics;
    auto fail = [&report](RunStage stage, Error e) {
        report.failed_stage = stage;
        report.error = std::move(e);
        return report;
    };

    for (const auto& d : kernel_.diagnostics) {
        if (d.severity == Severity::Error) {
            return fail(RunStage::Metadata, make_error("the kernel file has an error: " + d.str(),
                                                       "fix the metadata header or the signature as the message says"));
        }
    }
    if (!kernel_.signature) {
        return fail(RunStage::Metadata, make_error("no __global__ function found in " + kernel_.path.string(),
                                                   "a kernel file holds exactly one __global__ function"));
    }

    auto resolved = resolve(&report.input_problems);
    if (!resolved) return fail(RunStage::Resolve, resolved.error());
    report.resolved = *resolved;
    // What the device refuses whatever the kernel is, before spending a compile on it; the limits that
    // depend on the compiled kernel (registers, shared memory, __launch_bounds__) come after compiling.
    if (auto refused = check_device_limits(*resolved); !refused.empty()) {
        report.input_problems = refused;
        return fail(RunStage::Validate, make_error("launch refused: " + refused.front().error.message, refused.front().error.hint));
    }

    const CompileResult& compiled = compile();
    report.compiled = true;
    report.diagnostics.insert(report.diagnostics.end(), compiled.diagnostics.begin(), compiled.diagnostics.end());
    report.usage = compiled.usage;
    report.cache_hit = compiled.cache_hit;
    report.compile_ms = compiled.compile_ms;
    if (!compiled.ok) {
        if (compiled.error) return fail(RunStage::Compile, make_error(compiled.error->message, compiled.error->hint));
        std::string first = "compilation failed";
        size_t errors = 0;
        for (const auto& d : compiled.diagnostics) {
            if (d.severity != Severity::Error) continue;
            if (errors++ == 0) first = d.str();
        }
        return fail(RunStage::Compile,
                    make_error(errors > 1 ? first + " (and " + std::to_string(errors - 1) + " more errors)" : first,
                               "fix the source at the line shown; nothing was launched"));
    }

    LaunchCheck check{resolved->grid, resolved->block, resolved->dynamic_shared_bytes, compiled.usage, resolved->problem};
    report.launch_issues = validate_launch(device(), check);
    for (const auto& issue : report.launch_issues) {
        if (issue.severity == Severity::Error) {
            return fail(RunStage::Validate, make_error("launch refused: " + issue.message,
                                                       "change the block/grid (--block, --grid) as suggested"));
        }
    }
    // A compile-only backend (nothing can run kernels here): compiling was the whole job, and not running is
    // no error of the kernel's; report.launched says it did not run, the device notes say why.
    if (!engine_.capabilities().launches) return report;

    if (auto prepared = prepare_buffers(*resolved); !prepared) return fail(RunStage::Prepare, prepared.error());

    LaunchRequest launch;
    launch.module = compiled.module;
    launch.kernel_name = report.kernel;
    launch.grid = resolved->grid;
    launch.block = resolved->block;
    launch.dynamic_shared_bytes = resolved->dynamic_shared_bytes;
    launch.timing = options.timing;
    for (const auto& p : kernel_.signature->params) {
        KernelArg arg;
        arg.name = p.name;
        if (p.is_pointer) {
            arg.buffer = buffers_.at(p.name).id;
        } else {
            auto bytes = scalar_bytes(p.base_type, resolved->params.at(p.name));
            if (!bytes) return fail(RunStage::Prepare, bytes.error());
            arg.scalar = std::move(*bytes);
        }
        launch.args.push_back(std::move(arg));
    }
    if (options.before_launch) options.before_launch(report);
    LaunchResult launched = engine_.launch(std::move(launch));
    report.printf_output = launched.printf_output;
    if (!launched.ok) {
        const EngineError err = launched.error.value_or(EngineError{"", "the launch failed", "", false});
        if (err.context_was_reset) forget_device_state();  // the backend dropped every buffer and module
        std::string message = err.message;
        if (!err.name.empty() && message.find(err.name) == std::string::npos) message += " (" + err.name + ")";
        return fail(RunStage::Launch, make_error(message, err.hint));
    }
    report.launched = true;
    report.timing = launched.timing;
    if (report.timing.median_ms > 0) {
        report.bandwidth_gbps = double(resolved->traffic_bytes) / (report.timing.median_ms * 1e-3) / 1e9;
        if (device().copy_bandwidth_gbps > 0) report.bandwidth_fraction = report.bandwidth_gbps / device().copy_bandwidth_gbps;
    }
    for (const auto& [name, b] : buffers_) {
        report.device_addresses[name] = b.device_address;
        if (!b.ipc_handle.empty()) report.ipc_handles[name] = b.ipc_handle;
    }

    if (!options.read_back) return report;
    for (const auto& b : spec.buffers) {
        if (b.direction == Direction::In) continue;
        ReadBackResult rb = engine_.read_back({buffers_.at(b.name).id});
        if (rb.error) return fail(RunStage::Launch, make_error("could not read back `" + b.name + "`: " + rb.error->message));
        report.outputs[b.name] = HostBuffer{b.name, b.type, std::move(rb.data)};
    }
    if (options.verify && !spec.reference.empty()) verify(*resolved, report);
    return report;
}

// Compares the outputs with the file's CPU reference, computed from the same initial contents.
void KernelSession::verify(const ResolvedRun& resolved, RunReport& report) {
    const KernelSpec& spec = kernel_.spec;
    const ReferenceFn* reference = find_reference(spec.reference);
    if (!reference) {
        report.failed_stage = RunStage::Verify;
        report.error = make_error("unknown CPU reference `" + spec.reference + "`");
        return;
    }
    ReferenceInputs ref_inputs{resolved.params, {}};
    for (const auto& b : spec.buffers) ref_inputs.buffers.emplace(b.name, host_inputs_.at(b.name).host);
    std::map<std::string, HostBuffer> expected;
    if (std::string problem = (*reference)(ref_inputs, expected); !problem.empty()) {
        report.failed_stage = RunStage::Verify;
        report.error = make_error("reference `" + spec.reference + "`: " + problem);
        return;
    }
    bool all_ok = true;
    for (const auto& [name, want] : expected) {
        auto got = report.outputs.find(name);
        if (got == report.outputs.end()) continue;
        Comparison c = compare_buffers(got->second, want, spec.tolerance);
        report.max_abs_error = std::max(report.max_abs_error, c.max_abs_error);
        report.mismatches += c.mismatches;
        if (!c.ok && all_ok) report.mismatch_detail = c.detail;
        all_ok = all_ok && c.ok;
    }
    report.verified = all_ok;
}

}  // namespace cp
