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

LaunchReplay replay_launch(Backend& backend, const ProgramRequest& request, const ProgramRun& run, size_t index,
                           const ReplayChanges& changes) {
    LaunchReplay out;
    if (auto refusal = replay_refusal(run, index)) {
        out.error = engine_error(ErrorKind::Unsupported, "NOT_REPLAYABLE", "this launch cannot be re-run: " + *refusal);
        return out;
    }
    const ProgramLaunch& l = run.launches[index];
    out.grid = changes.grid.value_or(l.grid);
    out.block = changes.block.value_or(l.block);

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
    const CompileResult compiled = backend.compile(compile);
    out.diagnostics = compiled.diagnostics;
    if (!compiled.ok || compiled.error) {
        out.error = compiled.error ? compiled.error
                                   : std::optional<EngineError>(engine_error(
                                         ErrorKind::Compile, "COMPILE_FAILED",
                                         "`" + l.instance + "` did not compile on its own: " +
                                             (compiled.diagnostics.empty() ? std::string("see the log")
                                                                           : compiled.diagnostics[0].message)));
        return out;
    }

    std::vector<BufferId> ids;
    std::map<std::string, BufferId> by_name;
    auto release = [&] {
        ReleaseRequest r;
        r.buffers = ids;
        r.modules = {compiled.module};
        backend.release(r);
    };
    for (const ProgramBuffer& b : l.buffers) {
        ReplayBuffer rb;
        rb.name = b.name;
        rb.before = captured_bytes(run.capture_data, b.before_at, b.bytes);
        rb.program_after = captured_bytes(run.capture_data, b.after_at, b.bytes);
        AllocateRequest a;
        a.name = b.name;
        a.bytes = b.bytes;
        const AllocateResult made = backend.allocate(a);
        if (made.error) {
            out.error = made.error;
            release();
            return out;
        }
        ids.push_back(made.buffer);
        by_name[b.name] = made.buffer;
        UploadRequest up;
        up.buffer = made.buffer;
        up.data = rb.before;
        if (const UploadResult u = backend.upload(up); u.error) {
            out.error = u.error;
            release();
            return out;
        }
        out.buffers.push_back(std::move(rb));
    }

    LaunchRequest launch;
    launch.module = compiled.module;
    launch.kernel_name = l.instance;
    launch.grid = out.grid;
    launch.block = out.block;
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
    const LaunchResult launched = backend.launch(launch);
    if (!launched.ok || launched.error) {
        out.error = launched.error ? launched.error
                                   : std::optional<EngineError>(engine_error(ErrorKind::Unknown, "LAUNCH_FAILED",
                                                                             "the re-run launch failed"));
        release();
        return out;
    }
    out.ran = true;
    out.ms = launched.timing.samples_ms.empty() ? 0 : launched.timing.samples_ms.back();
    bool same = !changes.grid && !changes.block && changes.scalars.empty();
    for (size_t i = 0; i < out.buffers.size(); ++i) {
        ReadBackRequest r;
        r.buffer = ids[i];
        ReadBackResult back = backend.read_back(r);
        if (back.error) {
            out.error = back.error;
            out.ran = false;
            release();
            return out;
        }
        ReplayBuffer& rb = out.buffers[i];
        rb.replayed = std::move(back.data);
        for (size_t k = 0; k < rb.replayed.size(); ++k)
            if (k >= rb.program_after.size() || rb.replayed[k] != rb.program_after[k]) ++rb.differing_bytes;
        if (rb.differing_bytes) same = false;
    }
    out.same_as_program = same;
    release();
    return out;
}

}  // namespace cp
