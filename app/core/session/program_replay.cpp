// replay_launch: one captured launch again, alone, on a backend (program_replay.h).
#include "core/session/program_replay.h"

#include "core/kernel_file/host_code.h"
#include "core/text_util.h"

#include <algorithm>
#include <cstring>

namespace cp {


std::vector<std::byte> captured_bytes(const std::string& capture, uint64_t at, uint64_t bytes) {
    if (at > capture.size() || bytes > capture.size() - at) return {};
    const auto* start = reinterpret_cast<const std::byte*>(capture.data()) + at;
    return std::vector<std::byte>(start, start + bytes);
}

std::optional<std::string> replay_refusal(const ProgramRun& run, size_t index) {
    if (index >= run.launches.size()) return "the program has no launch " + std::to_string(index + 1);
    const ProgramLaunch& l = run.launches[index];
    if (l.instance.empty()) return "the kernel `" + l.kernel + "` it launched is not known by its instantiation";
    if (l.error && l.error->kind == ErrorKind::LaunchRefused) return "the program's launch was refused: nothing ran";
    if (!l.kernel_header.empty())
        return "the kernel `" + l.instance + "` is defined in the program's header " + l.kernel_header +
               ", and a launch re-runs alone only from the program's own file: copy the kernel into the file, or run "
               "the program with this change";
    if (l.kernel_overloaded)
        return "the kernel's name `" + l.instance + "` has several definitions (overloads), and a launch re-runs alone "
               "only of a kernel defined once: rename one of them, or run the program with this change";
    for (size_t i = 0; i < l.args.size(); ++i) {
        const ProgramArg& a = l.args[i];
        const std::string which = "argument " + std::to_string(i + 1);
        if (a.pointer && a.buffer.empty())
            return which + " is a pointer into none of the program's allocations (a null or host pointer)";
        if (!a.pointer && a.size > 64) return which + " is a value of " + std::to_string(a.size) + " bytes";
        // A struct holding device pointers: they point into the program's allocations, which a replay does not have.
        if (!a.pointer && a.size > 8) {
            const std::vector<std::byte> bytes = bytes_of_hex(a.bytes_hex);
            for (size_t w = 0; w + 8 <= bytes.size(); w += 8) {
                uint64_t v = 0;
                std::memcpy(&v, bytes.data() + w, 8);
                if (v >= (uint64_t(1) << 32) && v < (uint64_t(1) << 47))
                    return which + " is a struct holding pointers (a replay has no program allocations to point "
                                   "them at): run the whole program again instead";
            }
        }
    }
    for (const ProgramBuffer& b : l.buffers)
        if (!b.captured || !b.has_after)
            return "buffer `" + b.name + "` was not captured" +
                   (b.captured ? std::string(" after the launch") : " (past the capture's size limit)");
    return std::nullopt;
}

namespace {

// A captured launch set up again on a backend: its kernel compiled, its buffers allocated and filled as they were
// before the program's launch, the launch request made. Releases what it made when it goes.
struct ReplaySetup {
    Backend& backend;
    CompileResult compiled;
    std::vector<BufferId> ids;
    std::vector<ReplayBuffer> buffers;
    LaunchRequest launch;
    std::optional<EngineError> error;
    explicit ReplaySetup(Backend& b) : backend(b) {}
    ReplaySetup(const ReplaySetup&) = delete;
    ~ReplaySetup() {
        ReleaseRequest r;
        r.buffers = ids;
        if (compiled.module) r.modules = {compiled.module};
        if (!r.buffers.empty() || !r.modules.empty()) backend.release(r);
    }
};

// `stepping`: the debugger's copy of the kernel (a probe before each statement, every access recorded).
void set_up_replay(ReplaySetup& out, const ProgramRequest& request, const ProgramRun& run, size_t index,
                   const ReplayChanges& changes, bool stepping) {
    if (auto refusal = replay_refusal(run, index)) {
        out.error = engine_error(ErrorKind::Unsupported, "NOT_REPLAYABLE", "this launch cannot be re-run: " + *refusal);
        return;
    }
    const ProgramLaunch& l = run.launches[index];
    CompileRequest compile;
    if (!l.module_source.empty()) {  // a script's launch: the module it was compiled from
        compile.source = l.module_source;
        compile.extra_options = l.module_options;
        compile.include_dirs = l.module_include_dirs;
    } else {
        compile.source = separate_host_code(request.source, true).kernel_source;
        compile.include_dirs = request.include_dirs;
    }
    compile.path = request.path;
    compile.kernel_name = l.instance;
    compile.instrument_debug = stepping;
    compile.instrument_memory = stepping;  // where the backend can: shared writers, the elements touched
    out.compiled = out.backend.compile(compile);
    if (!out.compiled.ok || out.compiled.error) {
        out.error = out.compiled.error
                        ? out.compiled.error
                        : std::optional<EngineError>(engine_error(
                              ErrorKind::Compile, "COMPILE_FAILED",
                              "`" + l.instance + "` did not compile on its own" +
                                  (stepping ? std::string(" as the debugger's stepping copy") : std::string()) + ": " +
                                  (out.compiled.diagnostics.empty() ? std::string("see the log")
                                                                    : out.compiled.diagnostics[0].message)));
        return;
    }
    std::map<std::string, BufferId> by_name;
    for (const ProgramBuffer& b : l.buffers) {
        ReplayBuffer rb;
        rb.name = b.name;
        rb.before = captured_bytes(run.capture_data, b.before_at, b.bytes);
        rb.program_after = captured_bytes(run.capture_data, b.after_at, b.bytes);
        AllocateRequest a;
        a.name = b.name;
        a.bytes = b.bytes;
        const AllocateResult made = out.backend.allocate(a);
        if (made.error) {
            out.error = made.error;
            return;
        }
        out.ids.push_back(made.buffer);
        by_name[b.name] = made.buffer;
        UploadRequest up;
        up.buffer = made.buffer;
        up.data = rb.before;
        if (const UploadResult u = out.backend.upload(up); u.error) {
            out.error = u.error;
            return;
        }
        out.buffers.push_back(std::move(rb));
    }
    LaunchRequest& launch = out.launch;
    launch.module = out.compiled.module;
    launch.kernel_name = l.instance;
    launch.grid = changes.grid.value_or(l.grid);
    launch.block = changes.block.value_or(l.block);
    launch.dynamic_shared_bytes = uint32_t(l.shared_bytes);
    for (size_t i = 0; i < l.args.size(); ++i) {
        const ProgramArg& a = l.args[i];
        KernelArg k;
        if (a.pointer) {
            k.name = a.buffer;
            k.buffer = by_name.at(a.buffer);
            k.offset = a.offset;
        } else {
            auto changed = changes.scalars.find(i);
            k.scalar = changed != changes.scalars.end() ? changed->second : bytes_of_hex(a.bytes_hex);
        }
        launch.args.push_back(std::move(k));
    }
}

}  // namespace

LaunchReplay replay_launch(Backend& backend, const ProgramRequest& request, const ProgramRun& run, size_t index,
                           const ReplayChanges& changes) {
    LaunchReplay out;
    ReplaySetup setup(backend);
    set_up_replay(setup, request, run, index, changes, false);
    out.diagnostics = setup.compiled.diagnostics;
    out.grid = setup.launch.grid;
    out.block = setup.launch.block;
    if (setup.error) {
        out.error = setup.error;
        return out;
    }
    const LaunchResult launched = backend.launch(setup.launch);
    if (!launched.ok || launched.error) {
        out.error = launched.error ? launched.error
                                   : std::optional<EngineError>(engine_error(ErrorKind::Unknown, "LAUNCH_FAILED",
                                                                             "the re-run launch failed"));
        return out;
    }
    out.ran = true;
    out.ms = launched.timing.samples_ms.empty() ? 0 : launched.timing.samples_ms.back();
    bool same = !changes.grid && !changes.block && changes.scalars.empty();
    out.buffers = std::move(setup.buffers);
    for (size_t i = 0; i < out.buffers.size(); ++i) {
        ReadBackRequest r;
        r.buffer = setup.ids[i];
        ReadBackResult back = backend.read_back(r);
        if (back.error) {
            out.error = back.error;
            out.ran = false;
            return out;
        }
        ReplayBuffer& rb = out.buffers[i];
        rb.replayed = std::move(back.data);
        for (size_t k = 0; k < rb.replayed.size(); ++k)
            if (k >= rb.program_after.size() || rb.replayed[k] != rb.program_after[k]) ++rb.differing_bytes;
        if (rb.differing_bytes) same = false;
    }
    out.same_as_program = same;
    return out;
}

Result<BlockDebugRun> record_launch_block(Backend& backend, const ProgramRequest& request, const ProgramRun& run,
                                          size_t index, uint64_t block, int32_t warp) {
    const DeviceInfo device = backend.info().device;
    if (!device.caps.debug_steps)
        return make_error(ErrorKind::Unsupported,
                          "the " + device.backend + " backend cannot step through a block (the CPU backend can)",
                          "debug the program on the CPU backend");
    if (index < run.launches.size() && block >= run.launches[index].grid.count())
        return make_error(ErrorKind::UserInput,
                          "block " + std::to_string(block) + " is not in launch " + std::to_string(index + 1) +
                              "'s grid of " + std::to_string(run.launches[index].grid.count()) + " blocks",
                          "pick a block inside the grid " + run.launches[index].grid.str());
    ReplaySetup setup(backend);
    set_up_replay(setup, request, run, index, {}, true);
    if (setup.error) {
        const EngineError& e = *setup.error;
        return make_error(e.kind, e.message, e.hint);
    }
    setup.launch.timing = TimingOptions{0, 1, false};
    setup.launch.debug_block = block;
    setup.launch.debug_warp = warp;
    LaunchResult launched = backend.launch(setup.launch);
    std::optional<LaunchFailure> failure = launch_failure_of(launched.ok, launched.error, "the stepping launch");
    if (launched.debug) {
        BlockDebugRun out;
        out.recording = std::move(*launched.debug);
        out.failure = std::move(failure);
        return out;
    }
    if (failure)
        return make_error(failure->kind,
                          (failure->kind == ErrorKind::UserInput ? "" : "the stepping launch failed: ") + failure->message,
                          failure->hint);
    return make_error(ErrorKind::Internal, "the backend answered the stepping launch without a recording", "");
}

}  // namespace cp
