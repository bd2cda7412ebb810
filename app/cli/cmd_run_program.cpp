// `cuda-playground run prog.cu`, for a file with its own main(): the program as written, its output as its own, its
// exit status as the run's, and the playground's words on each launch (refused, faulted: thread, block, line,
// element) beside it on stderr. `--json FILE` keeps all of it.
#include "cli/commands.h"
#include "cli/program_args.h"
#include "core/session/script_host.h"

#include "core/session/program_lesson.h"
#include "core/backends/registry.h"
#include "core/engine/device_info_json.h"
#include "core/session/report_json.h"
#include "core/text_util.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>

namespace cp::cli {

namespace {

nlohmann::json error_json(const std::optional<EngineError>& e) {
    if (!e) return nullptr;
    nlohmann::json j = {{"kind", error_kind_name(e->kind)}, {"name", e->name}, {"message", e->message},
                        {"hint", e->hint}, {"line", e->line}};
    if (e->thread) j["thread"] = dim3_json(*e->thread);
    if (e->block) j["block"] = dim3_json(*e->block);
    return j;
}

nlohmann::json args_json(const std::vector<ProgramArg>& args) {
    nlohmann::json out = nlohmann::json::array();
    for (const ProgramArg& a : args) {
        nlohmann::json j = {{"size", a.size}, {"pointer", a.pointer}, {"bytes", a.bytes_hex}};
        if (!a.buffer.empty()) {
            j["buffer"] = a.buffer;
            j["offset"] = a.offset;
        }
        out.push_back(j);
    }
    return out;
}

nlohmann::json buffers_json(const std::vector<ProgramBuffer>& buffers) {
    nlohmann::json out = nlohmann::json::array();
    for (const ProgramBuffer& b : buffers) {
        nlohmann::json j = {{"name", b.name}, {"bytes", b.bytes}, {"captured", b.captured}};
        if (b.captured) j["before_at"] = b.before_at;
        if (b.has_after) j["after_at"] = b.after_at;
        if (!b.dtype.empty()) {  // a script's array: NumPy's dtype and shape
            j["dtype"] = b.dtype;
            j["shape"] = b.shape;
        }
        out.push_back(j);
    }
    return out;
}

nlohmann::json program_json(const std::string& file, const std::string& backend, const ProgramRun& r) {
    nlohmann::json launches = nlohmann::json::array();
    for (const ProgramLaunch& l : r.launches) {
        launches.push_back({{"kernel", l.kernel},
                            {"instance", l.instance},
                            {"line", l.line},
                            {"grid", dim3_json(l.grid)},
                            {"block", dim3_json(l.block)},
                            {"shared_bytes", l.shared_bytes},
                            {"stream", l.stream},
                            {"ms", l.ms},
                            {"cuda_error", l.cuda_error},
                            {"cuda_error_name", cuda_error_name(l.cuda_error)},
                            {"error", error_json(l.error)},
                            {"args", args_json(l.args)},
                            {"buffers", buffers_json(l.buffers)}});
        if (!l.file.empty()) launches.back()["file"] = l.file;
    }
    return {{"schema_version", 1},
            {"program", file},
            {"backend", backend},
            {"device", r.device},
            {"compiled", r.compiled},
            {"cache_hit", r.cache_hit},
            {"compile_ms", r.compile_ms},
            {"diagnostics", diagnostics_json(r.diagnostics)},
            {"end", program_end_name(r.end)},
            {"exit_status", r.exit_status},
            {"stdout", r.stdout_text},
            {"stderr", r.stderr_text},
            {"output_truncated", r.output_truncated},
            {"refused", r.refused},
            {"run_ms", r.run_ms},
            {"launches", launches},
            {"error", error_json(r.error)}};
}

// The playground's own lines, on stderr after the program's: what each launch did, and how the run ended.
void print_notes(const ProgramRun& r, const std::string& what, bool cpu_time) {
    const std::string p = "cuda-playground: ";
    if (r.output_truncated) std::cerr << p << "the program wrote more than 16 MiB; the rest was not kept\n";
    for (const std::string& attempt : r.refused)
        std::cerr << p << "the " << what << " tried to " << attempt << ": refused (a program here may read the files of its "
                  << "own folder and write none; the call failed in the program, which went on)\n";
    for (const ProgramLaunch& l : r.launches) {
        if (!l.error) continue;
        const std::string launch = "launch of `" + l.kernel + "` at " + launch_site_text(l) + " (grid " +
                                   l.grid.str() + ", block " + l.block.str() + ")";
        if (l.error->kind == ErrorKind::LaunchRefused)
            std::cerr << p << launch << " was refused: " << l.error->message
                      << (what == "script" ? "; the script got the launch's error at the call"
                                           : "; the program's cudaGetLastError() returns " +
                                                 cuda_error_name(l.cuda_error) + ", as CUDA's does")
                      << "\n";
        else
            std::cerr << p << launch << " failed: " << l.error->message
                      << (what == "script" ? "; the script got the error at the launch"
                                           : "; the program sees " + cuda_error_name(l.cuda_error) +
                                                 " from its next call that waits for the device")
                      << "\n";
        if (!l.error->hint.empty()) std::cerr << "  hint: " << l.error->hint << "\n";
    }
    if (r.error && (r.end == ProgramRun::End::Crashed || r.end == ProgramRun::End::Stopped ||
                    r.end == ProgramRun::End::Aborted || r.end == ProgramRun::End::NotRun)) {
        std::cerr << p << r.error->message << "\n";
        if (!r.error->hint.empty()) std::cerr << "  hint: " << r.error->hint << "\n";
    }
    size_t faulted = 0;
    for (const ProgramLaunch& l : r.launches) faulted += l.error.has_value();
    std::cerr << p << count_text(r.launches.size(), "launch", "launches") << " on " << r.device;
    if (faulted) std::cerr << ", " << faulted << " with an error";
    if (what == "script") {
        std::cerr << "; the script " << (r.end == ProgramRun::End::Returned ? "exited with status " + std::to_string(r.exit_status)
                                                                           : std::string(program_end_name(r.end)))
                  << "\n";
        if (cpu_time && !r.launches.empty())
            std::cerr << p << "the times the script measured (drv.Event, time_kernel, cupy.cuda.Event) are the CPU "
                         "emulator's, not a GPU's\n";
        return;
    }
    std::cerr << "; the program " << (r.end == ProgramRun::End::Exited ? "called exit(" + std::to_string(r.exit_status) + ")"
                                      : r.end == ProgramRun::End::Returned
                                          ? "returned " + std::to_string(r.exit_status)
                                          : std::string(program_end_name(r.end)))
              << "\n";
}

}  // namespace

int run_program(const ProgramCommand& command) {
    ProgramRequest request;
    request.path = command.file.string();
    request.source = command.source;
    request.args = command.program_args;
    request.include_dirs = command.include_dirs;
    request.time_limit_s = command.time_limit_s;
    if (!command.capture.empty() || command.save_launch) request.capture_limit = command.capture_limit;

    ProgramRun r;
    std::string backend = command.backend;
    bool cpu_time = false;
    std::optional<Error> refused;
    if (command.script) {
        ScriptRequest script;
        script.path = command.file;
        script.args = command.program_args;
        script.backend = command.backend;
        script.time_limit_s = command.time_limit_s;
        script.capture_limit = request.capture_limit;
        auto ran = run_script(script);
        if (ran) {
            r = std::move(ran->run);
            backend = ran->backend;
            cpu_time = ran->cpu_time;
            if (command.backend == "auto" && backend != "cuda")
                std::cerr << "cuda-playground: no NVIDIA GPU here, so the script's kernels run on the " << backend
                          << " backend\n";
        } else {
            refused = ran.error();
            r.error = engine_error(ran.error().kind, "SCRIPT_NOT_RUN", ran.error().message, ran.error().hint);
        }
    }
    if (!command.script) {
        auto made = make_program_runner(command.backend);
        if (made) {
            backend = made->backend;
            if (command.backend == "auto" && made->backend != "cuda")
                std::cerr << "cuda-playground: no NVIDIA GPU here, so the program runs on the " << made->backend
                          << " backend\n";
            r = made->runner->run(request);
        } else {
            // Refused before anything ran (`--backend cuda`): said as the JSON's error too, so a script gets its JSON.
            refused = made.error();
            r.error = engine_error(made.error().kind, "NO_PROGRAM_RUNNER", made.error().message, made.error().hint);
        }
    }

    const nlohmann::json report = program_json(command.file.string(), backend, r);
    if (!command.capture.empty() && r.compiled) {
        // The capture file (docs/program_capture.md): a first line naming the format and its version, the run's
        // JSON on one line, then the captured bytes (ProgramBuffer::before_at / after_at count from there).
        std::ofstream out(command.capture, std::ios::binary);
        const std::string manifest = report.dump() + "\n";
        if (!out || !(out << "CUDA-PLAYGROUND-CAPTURE 1\n" << manifest) ||
            !out.write(r.capture_data.data(), std::streamsize(r.capture_data.size())))
            return user_error("cannot write the capture " + command.capture, "check the path and the free space");
    }
    const bool json_to_stdout = command.json == "-";
    if (!command.json.empty()) {
        const std::string text = report.dump(2) + "\n";
        if (json_to_stdout) {
            std::cout << text;
        } else {
            std::ofstream out(command.json, std::ios::binary);
            if (!out || !(out << text)) return user_error("cannot write " + command.json, "check the path");
        }
    }
    if (refused) return user_error(*refused);
    if (!r.compiled) {
        for (const Diagnostic& d : r.diagnostics) std::cerr << d.str() << "\n";
        if (r.error) std::cerr << "error: " << r.error->message << "\n";
        size_t errors = 0;
        for (const Diagnostic& d : r.diagnostics) errors += d.severity == Severity::Error;
        std::cerr << "error: the program did not compile"
                  << (errors ? ": " + count_text(errors, "error", "errors") + ", above" : std::string()) << "\n";
        return 1;
    }
    for (const Diagnostic& d : r.diagnostics) std::cerr << d.str() << "\n";  // warnings
    if (!json_to_stdout) {
        std::cout << r.stdout_text << std::flush;
        std::cerr << r.stderr_text << std::flush;
    }
    print_notes(r, command.script ? "script" : "program", cpu_time);
    if (command.save_launch) {
        if (command.save_launch > r.launches.size())
            return user_error("--save-launch " + std::to_string(command.save_launch) + ": the program made " +
                                  count_text(r.launches.size(), "launch", "launches"),
                              "give a launch's number from 1 to " + std::to_string(r.launches.size()));
        auto lesson = lesson_from_launch(request, r, command.save_launch - 1);
        if (!lesson) return user_error(lesson.error());
        auto written = write_program_lesson(*lesson, command.out_dir);
        if (!written) return user_error(written.error());
        std::cerr << "cuda-playground: launch " << command.save_launch << " saved as a lesson: " << written->string()
                  << " (run it with `cuda-playground run " << written->string() << "`)\n";
    }
    if (r.end == ProgramRun::End::Crashed || r.end == ProgramRun::End::Stopped || r.end == ProgramRun::End::NotRun)
        return r.exit_status ? r.exit_status : 1;
    return r.exit_status;
}

}  // namespace cp::cli
