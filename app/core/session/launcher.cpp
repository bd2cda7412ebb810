// Launcher (launcher.h): every launch's request to the engine, its answer made a typed outcome, its record shown
// to the observers.
#include "core/session/launcher.h"

#include <algorithm>

namespace cp {

const char* launch_purpose_name(LaunchPurpose p) {
    switch (p) {
        case LaunchPurpose::Run:
            return "run";
        case LaunchPurpose::Step:
            return "step";
        case LaunchPurpose::Coverage:
            return "coverage";
        case LaunchPurpose::CountWriters:
            return "count_writers";
        case LaunchPurpose::Trace:
            return "trace";
        case LaunchPurpose::Memory:
            return "memory";
        case LaunchPurpose::Debug:
            return "debug";
        case LaunchPurpose::DeviceWhole:
            return "device_whole";
        case LaunchPurpose::DevicePart:
            return "device_part";
        case LaunchPurpose::Stream:
            return "stream";
        case LaunchPurpose::SweepPoint:
            return "sweep_point";
        case LaunchPurpose::Variant:
            return "variant";
    }
    return "?";
}

std::string LaunchFailure::named_message() const {
    if (name.empty() || message.find(name) != std::string::npos) return message;
    return message + " (" + name + ")";
}

// The failure of an answer that is not ok or carries an error; nullopt for a success. `what` names the request
// for the message of a backend that gave no reason.
std::optional<LaunchFailure> launch_failure_of(bool ok, std::optional<EngineError>& error, const char* what) {
    if (ok && !error) return std::nullopt;
    LaunchFailure f;
    if (!error) {
        f.message = std::string("the backend answered that ") + what + " failed, and gave no reason";
        f.hint =
            "this is a bug in CUDA Playground's backend: run again, and if it happens again, report it with the "
            "kernel file and the backend's name";
        f.kind = ErrorKind::Internal;
        return f;
    }
    EngineError& e = *error;
    f.name = std::move(e.name);
    f.message = std::move(e.message);
    f.hint = std::move(e.hint);
    f.kind = e.kind;
    f.line = e.line;
    f.thread = e.thread;
    f.block = e.block;
    f.context_was_reset = e.context_was_reset;
    return f;
}


Launcher::ObserverId Launcher::observe(LaunchObserver observer) {
    const ObserverId id = next_id_++;
    observers_.emplace_back(id, std::move(observer));
    return id;
}

void Launcher::stop_observing(ObserverId id) {
    std::erase_if(observers_, [id](const auto& o) { return o.first == id; });
}

void Launcher::report_to(const Launcher* parent, std::string variant) {
    parent_ = parent;
    variant_ = parent ? std::move(variant) : std::string();
}

bool Launcher::observed() const {
    return !observers_.empty() || (parent_ && parent_->observed());
}

void Launcher::notify(LaunchRecord& record) const {
    if (record.variant.empty()) record.variant = variant_;
    {
        const std::lock_guard lock(notifying_);
        for (const auto& [id, observer] : observers_) observer(record);
    }
    if (parent_) parent_->notify(record);
}

LaunchOutcome Launcher::launch(Engine& engine, LaunchRequest request, LaunchSite site) const {
    // Unobserved (the live run's path): the request goes to the engine as it is. Observed: a copy stays for the
    // record (names, arguments and options: no buffer's contents).
    std::optional<LaunchRequest> kept;
    if (observed()) kept = request;
    LaunchResult answer = engine.launch(std::move(request));
    LaunchOutcome out;
    out.failure = launch_failure_of(answer.ok, answer.error, "the launch");
    out.timing = std::move(answer.timing);
    out.phases = answer.phases;
    out.backend_ms = answer.backend_ms;
    out.printf_output = std::move(answer.printf_output);
    out.trace = std::move(answer.trace);
    out.trace_unit = std::move(answer.trace_unit);
    out.memory = std::move(answer.memory);
    out.debug = std::move(answer.debug);
    if (kept) {
        LaunchRecord record;
        record.site = site;
        record.device = engine.device().ordinal;
        record.kernel = kept->kernel_name;
        record.module = kept->module;
        record.grid = kept->grid;
        record.block = kept->block;
        record.dynamic_shared_bytes = kept->dynamic_shared_bytes;
        record.args = kept->args;
        record.request = &*kept;
        record.failure = out.failure ? &*out.failure : nullptr;
        record.kernel_ms = out.timing.median_ms;
        notify(record);
    }
    return out;
}

StreamsOutcome Launcher::streams(Engine& engine, StreamsRequest request, LaunchSite site) const {
    // Observed: each chunk's grid, stream and arguments, without the bytes its copies carry.
    struct Chunk {
        int stream = 0;
        Dim3 grid;
        std::vector<KernelArg> args;
    };
    std::vector<Chunk> chunks;
    std::string kernel;
    const bool observing = observed();
    if (observing) {
        kernel = request.kernel_name;
        for (const StreamChunk& c : request.chunks) chunks.push_back({c.stream, c.grid, c.args});
    }
    const ModuleId module = request.module;
    const Dim3 block = request.block;
    const uint32_t shared = request.dynamic_shared_bytes;
    StreamsResult answer = engine.streams(std::move(request));
    StreamsOutcome out;
    out.failure = launch_failure_of(answer.ok, answer.error, "the streamed run");
    out.ops = std::move(answer.ops);
    out.total_ms = answer.total_ms;
    out.one_stream_ms = answer.one_stream_ms;
    out.host_clock = answer.host_clock;
    out.d2h_data = std::move(answer.d2h_data);
    out.printf_output = std::move(answer.printf_output);
    if (observing) {
        for (size_t k = 0; k < chunks.size(); ++k) {
            LaunchRecord record;
            record.site = site;
            record.site.index = int(k);
            record.device = engine.device().ordinal;
            record.kernel = kernel;
            record.module = module;
            record.grid = chunks[k].grid;
            record.block = block;
            record.dynamic_shared_bytes = shared;
            record.args = chunks[k].args;
            record.stream = chunks[k].stream;
            record.failure = out.failure ? &*out.failure : nullptr;
            const auto op = std::find_if(out.ops.begin(), out.ops.end(), [k](const StreamOp& o) {
                return o.kind == StreamOpKind::Kernel && o.chunk == int(k);
            });
            if (op != out.ops.end()) record.kernel_ms = op->end_ms - op->start_ms;
            notify(record);
        }
    }
    return out;
}

}  // namespace cp
