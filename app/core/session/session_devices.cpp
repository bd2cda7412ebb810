// A `devices: ... over n` file's run (KernelSession::run_on_devices): the work cut into one part per device by
// the chunk plan, each device (its own engine, its own worker process) allocating, uploading, launching and
// reading back its part at the same time as the others, then the parts put together and checked against the
// reference as any run. The same work on the first device alone gives the one-device time for the speed-up.
#include "core/session/chunk_plan.h"
#include "core/clock.h"
#include "core/session/coverage.h"
#include "core/session/device_split_check.h"
#include "core/session/run_stage.h"
#include "core/session/scalar_arg.h"
#include "core/session/session.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <future>

namespace cp {

namespace {

// One part's run on one device, with the bytes it read back.
struct PartOutcome {
    DevicePart part;
    TimingStats timing;
    std::string printf_output;
    std::map<std::string, std::vector<std::byte>> outputs;  // out/inout buffers: the part's bytes
    std::optional<Error> error;
    bool context_reset = false;
};

// What every part's run reads, shared by the device threads (read only).
struct PartInputs {
    const KernelFile& kernel;
    const ResolvedRun& resolved;
    const std::map<std::string, const HostBuffer*>& host;
    const RunOptions& options;
    std::optional<ThreadOrderChoice> thread_order;
    const Launcher& launcher;  // the session's: every part's launch goes through it, on the part's engine
};

std::string where(const DevicePart& p, bool gpu) {
    return std::string(gpu ? "GPU " : "CPU worker ") + std::to_string(p.ordinal) + " (elements [" +
           std::to_string(p.begin) + ", " + std::to_string(p.end) + "))";
}

// What a part uploads (one request per chunk buffer, in order), copied out of the host buffers before any clock
// starts. The one-device run copied all of it on one thread inside its timed run while the split copied its parts
// on several threads at once, so the baseline paid host work that the split shared out (2 GPUs were reported
// 2.23x and 2.71x faster than one).
std::vector<UploadRequest> part_uploads(const ChunkPart& chunk, const PartInputs& in) {
    std::vector<UploadRequest> out;
    for (const ChunkBuffer& b : chunk.buffers) {
        const BufferSpec& spec = *in.kernel.buffer(b.name);
        const uint32_t element = elem_info(spec.type).size;
        const std::vector<std::byte>& host = in.host.at(b.name)->bytes;
        UploadRequest up;
        up.pinned = in.options.pinned_host;
        if (buffer_is_uniform(spec)) {
            up.data.assign(host.begin(), host.begin() + element);
            up.repeat = true;
        } else {
            up.data.assign(host.begin() + long(b.byte_offset), host.begin() + long(b.byte_offset + b.bytes));
        }
        out.push_back(std::move(up));
    }
    return out;
}

// Allocate, upload, launch, read back and release the part's buffers on `engine`: blocking calls, run on a thread
// of its own so that every device works at once.
PartOutcome run_part(Engine& engine, ModuleId module, const ChunkPart& chunk, std::vector<UploadRequest> uploads,
                     const PartInputs& in, LaunchSite site) {
    PartOutcome out;
    DevicePart& p = out.part;
    p.ordinal = engine.device().ordinal;
    p.name = engine.device().name;
    p.begin = chunk.begin;
    p.end = chunk.end;
    p.grid = chunk.grid;
    const bool gpu = engine.capabilities().gpu;
    std::map<std::string, BufferId> ids;
    auto fail = [&](const std::string& what, const EngineError& e) {
        out.error = make_error(e.kind, where(p, gpu) + ": " + what + ": " + e.message, e.hint);
        out.context_reset = out.context_reset || e.context_was_reset;
    };
    auto run = [&] {
        for (size_t k = 0; k < chunk.buffers.size(); ++k) {
            const ChunkBuffer& b = chunk.buffers[k];
            const BufferSpec& spec = *in.kernel.buffer(b.name);
            const uint32_t element = elem_info(spec.type).size;
            AllocateResult a = engine.allocate({b.name, b.bytes, element});
            if (a.error) return fail("could not allocate its part of `" + b.name + "`", *a.error);
            ids[b.name] = a.buffer;
            p.times.allocate_ms += a.elapsed_ms;
            p.times.allocations++;
            p.times.allocated_bytes += b.bytes;
            UploadRequest up = std::move(uploads[k]);
            up.buffer = a.buffer;
            UploadResult u = engine.upload(std::move(up));
            if (u.error) return fail("could not upload its part of `" + b.name + "`", *u.error);
            p.times.upload_ms += u.elapsed_ms;
            p.times.uploads++;
            p.times.upload_bytes += b.bytes;
        }
        const KernelSignature& sig = *in.kernel.signature;
        LaunchRequest launch;
        launch.module = module;
        launch.kernel_name = sig.launch_name;
        launch.grid = chunk.grid;
        launch.block = in.resolved.block;
        launch.dynamic_shared_bytes = in.resolved.dynamic_shared_bytes;
        launch.timing = in.options.timing;
        if (engine.capabilities().thread_order) launch.thread_order = in.thread_order;
        auto args = kernel_args(sig, chunk.params, [&ids](const std::string& name) {
            return BufferArg{ids.at(name), 0};
        });
        if (!args) return fail("an argument", to_engine_error(args.error(), "", ErrorKind::UserInput));
        launch.args = std::move(*args);
        LaunchOutcome launched = in.launcher.launch(engine, std::move(launch), site);
        out.printf_output = std::move(launched.printf_output);
        if (const std::optional<LaunchFailure>& e = launched.failure) {
            // Its engine's state is forgotten after every part has ended (setback): never from a part's thread.
            out.error = make_error(e->kind, where(p, gpu) + ": the kernel failed: " + e->message, e->hint);
            out.context_reset = out.context_reset || e->context_was_reset;
            return;
        }
        out.timing = launched.timing;
        p.times.kernel_ms = launched.timing.median_ms;
        for (const ChunkBuffer& b : chunk.buffers) {
            if (b.direction == Direction::In) continue;
            ReadBackResult rb = engine.read_back({ids.at(b.name), in.options.pinned_host});
            if (rb.error) return fail("could not read back its part of `" + b.name + "`", *rb.error);
            p.times.download_ms += rb.elapsed_ms;
            p.times.downloads++;
            p.times.download_bytes += rb.data.size();
            out.outputs[b.name] = std::move(rb.data);
        }
    };
    run();
    std::vector<BufferId> release;
    for (const auto& [name, id] : ids) release.push_back(id);
    if (!release.empty() && !out.context_reset) engine.release({release, {}});
    return out;
}

struct Job {
    Engine* engine = nullptr;
    ModuleId module = 0;
    const ChunkPart* part = nullptr;
    LaunchSite site;  // DeviceWhole, or DevicePart with the part's index
};

// Every job at once, one thread per device; the host clock around all of them, started once every part's
// uploads are prepared (the same for one device and for a split: like is compared with like).
std::vector<PartOutcome> run_parts(const std::vector<Job>& jobs, const PartInputs& in, double& wall_ms) {
    std::vector<std::vector<UploadRequest>> uploads;
    for (const Job& job : jobs) uploads.push_back(part_uploads(*job.part, in));
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::future<PartOutcome>> running;
    for (size_t i = 0; i < jobs.size(); ++i)
        running.push_back(std::async(std::launch::async, [&in, job = jobs[i], up = std::move(uploads[i])]() mutable {
            return run_part(*job.engine, job.module, *job.part, std::move(up), in, job.site);
        }));
    std::vector<PartOutcome> done;
    for (auto& f : running) done.push_back(f.get());
    wall_ms = ms_since(start);
    return done;
}

}  // namespace

std::string DeviceSplitReport::summary() const {
    const std::string u = unit();
    auto units = [&u](int k) { return std::to_string(k) + " " + u + (k == 1 ? "" : "s"); };
    if (parts.size() <= 1) {
        const uint64_t half = (total + 1) / 2;
        std::string text = units(devices_here) + " here: " + u + " " +
                           std::to_string(parts.empty() ? 0 : parts[0].ordinal) + " did all " + with_thousands(total) +
                           " elements";
        if (devices_here > 1 && devices_used == 1) text += " (the file asks for at most 1)";
        if (total >= 2) text += "; with 2 " + u + "s each would take about " + with_thousands(half);
        return text;
    }
    std::string text = units(int(parts.size())) +
                       (devices_here > int(parts.size()) ? " of " + std::to_string(devices_here) : "") + ": ";
    for (size_t i = 0; i < parts.size(); ++i) {
        const DevicePart& p = parts[i];
        text += (i == 0 ? "" : ", ") + u + " " + std::to_string(p.ordinal) + (i == 0 ? " did [" : " [") +
                std::to_string(p.begin) + ", " + std::to_string(p.end) + ")";
    }
    return text;
}

std::string speedup_caveat(const DeviceSplitReport& s) {
    const size_t k = s.parts.size();
    if (k <= 1) return "";
    const double over = std::max(s.speedup(), s.stage_speedup());
    if (over <= double(k)) return "";
    char text[64];
    std::snprintf(text, sizeof text, "%.2fx", over);
    return std::string(text) + " on " + std::to_string(k) + " " + s.unit() +
           "s is not a meaningful speed-up: splitting the work " + std::to_string(k) + " ways can make it at most " +
           std::to_string(k) + "x faster, so the one-" + s.unit() +
           " run paid something the split did not (the first use of a device, "
           "memory touched for the first time) or the times are too short to tell apart; run again, or with a larger " +
           s.param;
}

double DeviceSplitReport::slowest_part_ms() const {
    double slowest = 0;
    for (const DevicePart& p : parts) slowest = std::max(slowest, p.times.total_ms());
    return slowest;
}

void KernelSession::use_devices(int count, OpenEngine open) {
    device_count_ = std::max(1, count);
    open_engine_ = std::move(open);
    devices_.reset();
}

RunReport KernelSession::run_on_devices(const ResolvedRun& resolved, const CompileResult& compiled,
                                        const RunOptions& options, RunReport report) {
    const KernelSpec& spec = kernel_.spec;
    const DeviceSplitSpec& split = spec.devices;
    auto fail = [&report](RunStage stage, Error e) {
        report.failed_stage = stage;
        report.error = std::move(e);
        return report;
    };
    std::map<std::string, const HostBuffer*> host;
    for (const BufferSpec& b : spec.buffers) {
        auto filled = host_input(b, resolved);
        if (!filled) return fail(RunStage::Prepare, filled.error());
        host[b.name] = *filled;
    }
    if (!devices_) devices_ = std::make_unique<DeviceSet>(engine_, device_count_, open_engine_);

    DeviceSplitReport s;
    s.param = split.param;
    s.devices_here = devices_->count();
    s.gpu = engine_.capabilities().gpu;
    const PartInputs in{kernel_, resolved, host, options,
                        engine_.capabilities().thread_order ? choices_.thread_order : std::nullopt, launcher_};
    auto setback = [&](const PartOutcome& o, size_t index) {
        if (!o.context_reset) return;
        if (index == 0)
            forget_device_state();  // this session's engine dropped every buffer and module
        else
            devices_->forget(int(index));
    };

    // The first device alone: the one-device time, and the whole run when there is nothing to split it over.
    auto whole = plan_chunks(resolved, spec.buffers, spec.launch, split.param, 1);
    if (!whole) return fail(RunStage::Prepare, whole.error());
    s.total = whole->total;
    if (options.before_launch) options.before_launch(report);
    double one_ms = 0;
    std::vector<PartOutcome> alone =
        run_parts({{&engine_, compiled.module, &whole->parts[0], {LaunchPurpose::DeviceWhole}}}, in, one_ms);
    setback(alone[0], 0);
    report.printf_output = alone[0].printf_output;
    if (alone[0].error) return fail(RunStage::Launch, *alone[0].error);
    s.one_device = alone[0].part;
    s.one_device_ms = one_ms;
    const bool pinned = report.transfers.pinned;
    report.transfers = alone[0].part.times;
    report.transfers.pinned = pinned;
    report.timing = alone[0].timing;

    int parts = devices_->usable();
    if (split.max_devices > 0) parts = std::min(parts, split.max_devices);
    parts = int(std::min<uint64_t>(uint64_t(parts), std::max<uint64_t>(s.total, 1)));
    s.devices_used = parts;
    std::vector<PartOutcome> outcomes;
    std::optional<ChunkPlan> plan;
    if (parts == 1) {
        s.parts = {alone[0].part};
        s.split_ms = one_ms;
        outcomes = std::move(alone);
        plan = std::move(*whole);
    } else {
        auto cut = plan_chunks(resolved, spec.buffers, spec.launch, split.param, parts);
        if (!cut) return fail(RunStage::Prepare, cut.error());
        plan = std::move(*cut);
        CompileRequest request;
        request.source = kernel_.compile_source.empty() ? kernel_.source : kernel_.compile_source;
        request.path = kernel_.path.string();
        request.kernel_name = kernel_.signature->launch_name;
        std::vector<Job> jobs{{&engine_, compiled.module, &plan->parts[0], {LaunchPurpose::DevicePart, 0}}};
        for (int i = 1; i < parts; ++i) {  // opened and compiled one after the other, before the clock starts
            auto engine = devices_->engine(i);
            if (!engine) return fail(RunStage::Prepare, engine.error());
            auto module = devices_->module(i, request);
            if (!module) return fail(RunStage::Compile, module.error());
            // The device's module is the DeviceSet's (compiled once per text): a stage entry says whether this run
            // made it (a new module id) or found it there.
            const std::string name = "compile device " + std::to_string((*engine)->device().ordinal);
            Stage<ModuleId>& stage = stages_->device_compiles.try_emplace(name, name).first->second;
            Fingerprint fingerprint = compile_fingerprint(request, (*engine)->device().name);
            const ModuleId* had = stage.reusable(fingerprint);
            if (had && *had == *module) {
                report.stage_runs.push_back(stage.reused());
            } else {
                const std::string why = stage.why(fingerprint);
                report.stage_runs.push_back(stage.ran(why.empty() ? "its module was released" : why));
                stage.keep(std::move(fingerprint), *module);
            }
            jobs.push_back({*engine, *module, &plan->parts[size_t(i)], {LaunchPurpose::DevicePart, i}});
        }
        outcomes = run_parts(jobs, in, s.split_ms);
        for (size_t i = 0; i < outcomes.size(); ++i) setback(outcomes[i], i);
        for (const PartOutcome& o : outcomes) {
            if (!o.printf_output.empty()) report.printf_output += o.printf_output;
            if (o.error) return fail(RunStage::Launch, *o.error);
            s.parts.push_back(o.part);
        }
    }
    if (outcomes.size() > 1) {
        // The report's top lines (time, steps, bandwidth) describe what ran: the split. The parts ran at once, so
        // the launch took as long as its slowest part; bytes and copies are all the parts'.
        size_t slowest = 0;
        for (size_t i = 1; i < outcomes.size(); ++i)
            if (outcomes[i].timing.median_ms > outcomes[slowest].timing.median_ms) slowest = i;
        report.timing = outcomes[slowest].timing;
        TransferTimes all;
        all.pinned = pinned;
        for (const PartOutcome& o : outcomes) {
            const TransferTimes& t = o.part.times;
            all.allocate_ms = std::max(all.allocate_ms, t.allocate_ms);
            all.upload_ms = std::max(all.upload_ms, t.upload_ms);
            all.download_ms = std::max(all.download_ms, t.download_ms);
            all.allocations += t.allocations;
            all.allocated_bytes += t.allocated_bytes;
            all.uploads += t.uploads;
            all.upload_bytes += t.upload_bytes;
            all.downloads += t.downloads;
            all.download_bytes += t.download_bytes;
        }
        report.transfers = all;
    }
    report.launched = true;
    report.transfers.kernel_ms = report.timing.median_ms;
    if (report.timing.median_ms > 0) {
        report.bandwidth_gbps = double(resolved.traffic_bytes) / (report.timing.median_ms * 1e-3) / 1e9;
        // Against the copy bandwidth of every device that worked at once.
        if (device().copy_bandwidth_gbps > 0)
            report.bandwidth_fraction =
                report.bandwidth_gbps / (device().copy_bandwidth_gbps * double(std::max<size_t>(1, outcomes.size())));
    }
    report.device_split = s;
    if (!options.read_back) return report;

    // The parts put back together where the plan cut them: a device that wrote the wrong place shows up below.
    for (const BufferSpec& b : spec.buffers) {
        if (b.direction == Direction::In) continue;
        HostBuffer assembled = *host.at(b.name);
        for (size_t i = 0; i < outcomes.size(); ++i) {
            const std::vector<std::byte>& got = outcomes[i].outputs.at(b.name);
            for (const ChunkBuffer& cb : plan->parts[i].buffers)
                if (cb.name == b.name && cb.byte_offset + got.size() <= assembled.bytes.size())
                    std::memcpy(assembled.bytes.data() + cb.byte_offset, got.data(),
                                std::min<uint64_t>(got.size(), cb.bytes));
        }
        report.outputs[b.name] = std::move(assembled);
    }
    if (options.verify && has_check(spec)) add_to_report(check_outputs(resolved, report.outputs), report);
    return report;
}

}  // namespace cp
