// `cuda-playground debug FILE --block X,Y,Z --break LINE`: one block run on the CPU backend by the stepping copy
// of the kernel (a probe before every statement, core/cpu/debug_instrument.h), recorded whole, and shown at a stop:
// where each thread is, its variables, the block's shared memory. The same stop as JSON with --json.
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/program_args.h"
#include "cli/session_setup.h"
#include "core/backends/registry.h"
#include "core/kernel_file/kernel_file.h"
#include "core/kernel_file/program_file.h"
#include "core/session/program_replay.h"
#include "core/session/script_host.h"
#include "core/text_util.h"
#include "core/engine/debug_recording.h"
#include "core/engine/launch_validation.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

namespace cp::cli {

namespace {

std::string debug_usage() {
    return R"(usage: cuda-playground debug FILE [--block X,Y,Z] [--break LINE [--hit N] | --barrier K | --round K] [options]

Runs one block of the kernel on the CPU backend, a probe before each statement recording every thread's
variables, and the block's shared memory after each round (a round: every thread that can run executes one
statement, as a warp's lanes do together; threads at a barrier wait for the others). Then shows one stop:
which line each thread is at, its variables there (before that line runs) and the shared arrays.

  --block X,Y,Z   the block to step through (default 0,0,0)
  --break LINE    stop at the first round in which a thread arrives at LINE
  --hit N         ... the Nth such round (default 1)
  --barrier K     stop at the Kth __syncthreads() (1-based): every thread waits there, shared memory holds
                  everything written before it
  --round K       stop after round K (0-based); without --break or --round: the last round
  --warp W        warp W of the block steps alone: each round only its threads run a statement, the
                  other warps wait at their line until it reaches a __syncthreads() or returns
  --threads A-B   the threads to list (linear indices; default: all, at most 64 shown as text)
  --watch EXPR    an expression for each thread at the stop (repeatable): arithmetic over its variables,
                  threadIdx.x, blockIdx.x, blockDim.x (and .y, .z), elements of __shared__ arrays
                  (partial[tid + stride], tile[ty][tx]), of small local arrays, and through a pointer
                  (in[i] * 2: the value this block last loaded or stored there)
  --json          the stop as JSON (every thread)
  --set, --grid, --block-dim   as for `run` (--block-dim X,Y,Z is run's --block)

A whole program (a file with its own main()) or a Python script (.py) runs as written first, on the CPU
backend with each launch's buffers captured; then a block of one of its launches is stepped through on the
inputs the program gave it:
  --launch N      the program's Nth launch (default 1); its block that faulted unless --block says
  -- ARGS...      the program's own arguments;  -I DIR  its headers' folder;  --time-limit S
)";
}

// "3" or "2-9": the threads to list.
Result<std::pair<uint32_t, uint32_t>> parse_thread_range(const std::string& text, uint32_t threads) {
    const size_t dash = text.find('-');
    try {
        size_t used = 0;
        const unsigned long a = std::stoul(text.substr(0, dash), &used);
        unsigned long b = a;
        if (dash != std::string::npos) b = std::stoul(text.substr(dash + 1));
        if (a > b || b >= threads) throw std::out_of_range("range");
        return std::pair<uint32_t, uint32_t>{uint32_t(a), uint32_t(b)};
    } catch (const std::exception&) {
        return make_error(ErrorKind::UserInput, "--threads `" + text + "` is not a range of the block's " +
                                                    std::to_string(threads) + " threads",
                          "e.g. --threads 0-31 (the first warp) or --threads 5");
    }
}

// "3", "3,1" or "3,1,0": a block's place in the grid (missing coordinates are 0).
Result<Dim3> parse_block_index(const std::string& text) {
    std::vector<uint32_t> parts;
    size_t start = 0;
    while (start <= text.size() && parts.size() <= 3) {
        const size_t comma = std::min(text.find(',', start), text.size());
        const std::string part = text.substr(start, comma - start);
        if (part.empty() || part.size() > 9 || part.find_first_not_of("0123456789") != std::string::npos) {
            parts.clear();
            break;
        }
        parts.push_back(uint32_t(std::stoul(part)));
        start = comma + 1;
    }
    if (parts.empty() || parts.size() > 3)
        return make_error(ErrorKind::UserInput, "--block `" + text + "` is not a block's place in the grid",
                          "give its x, y and z from 0, e.g. --block 3,0,0 (or --block 3)");
    parts.resize(3, 0);
    return Dim3{parts[0], parts[1], parts[2]};
}

nlohmann::json value_json(const DebugTimeline& t, const DebugVariable& v) {
    const DebugRecording& r = t.recording();
    if (v.offset + v.bytes > r.values.size()) return nullptr;
    const std::byte* data = r.values.data() + v.offset;
    if (v.kind == DebugValueKind::Pointer && v.count <= 1) return t.value_text(v);  // "&in[339]"
    auto number = [&](uint32_t k) -> nlohmann::json {
        if (v.kind == DebugValueKind::Pointer || v.kind == DebugValueKind::Other)
            return debug_value_text(v.kind, v.element_size, data + size_t(k) * v.element_size, 1);
        if (v.kind == DebugValueKind::Bool) return std::to_integer<int>(data[k]) != 0;
        const std::optional<double> x = debug_value_number(v.kind, v.element_size, data + size_t(k) * v.element_size);
        if (!x) return nullptr;
        if (v.kind == DebugValueKind::Signed) return int64_t(*x);
        if (v.kind == DebugValueKind::Unsigned) return uint64_t(*x);
        return *x;
    };
    if (v.count <= 1) return number(0);
    nlohmann::json out = nlohmann::json::array();
    for (uint32_t k = 0; k < v.count; ++k) out.push_back(number(k));
    return out;
}

std::string dims_text(const std::vector<uint64_t>& extents) {
    std::string out;
    for (uint64_t e : extents) out += "[" + std::to_string(e) + "]";
    return out;
}

}  // namespace

namespace {

// What is stepped through: the recording of one block, and where it came from.
struct DebugSubject {
    BlockDebugRun run;
    Dim3 pick;           // the block
    std::string kernel;  // its name (a program's: the instantiation it ran)
    size_t launch = 0;   // a program's or script's launch (1-based); 0: a kernel file's own run
    int launch_line = 0;
    std::string what;    // "program" or "script"
};

Result<int32_t> parse_warp(const Args& args) {
    if (!args.has("--warp")) return -1;
    auto w = parse_whole_number("--warp", args.get("--warp"), 0, 31);
    if (!w) return w.error();
    return int32_t(*w);
}

Result<uint64_t> linear_block(const Dim3& pick, const Dim3& grid, const std::string& whose) {
    if (pick.x >= grid.x || pick.y >= grid.y || pick.z >= grid.z)
        return make_error(ErrorKind::UserInput,
                          "block (" + std::to_string(pick.x) + "," + std::to_string(pick.y) + "," +
                              std::to_string(pick.z) + ") is not in " + whose + " grid " + grid.str(),
                          "pick x, y and z below the grid's");
    return pick.x + uint64_t(grid.x) * (pick.y + uint64_t(grid.y) * pick.z);
}

// A kernel file: its header's run, on the CPU backend unless --backend says otherwise.
Result<DebugSubject> lesson_subject(const Args& args, const SplitRunArgs& split) {
    if (split.separator || !split.include_dirs.empty() || args.has("--launch") || args.has("--time-limit"))
        return make_error(ErrorKind::UserInput,
                          "program arguments after `--`, -I, --launch and --time-limit are for whole programs (a file "
                          "with a main()) and Python scripts, and " + args.positional[0] + " is a kernel file",
                          "debug it without them; its header says how it runs (--set, --grid, --block-dim change it)");
    // `run`'s --block is the block's shape; here --block picks the block and --block-dim is the shape.
    Args launch_args = args;
    launch_args.values.erase("--block");
    launch_args.values.erase("--warp");
    if (args.has("--block-dim")) launch_args.values["--block"] = args.all("--block-dim");
    launch_args.values.erase("--block-dim");
    if (!args.has("--backend")) launch_args.values["--backend"] = {"cpu"};
    auto launch = parse_launch_options(launch_args);
    if (!launch) return launch.error();
    auto warp = parse_warp(args);
    if (!warp) return warp.error();
    DebugSubject out;
    out.pick = Dim3{0, 0, 0};
    if (args.has("--block")) {
        auto d = parse_block_index(args.get("--block"));
        if (!d) return d.error();
        out.pick = *d;
    }
    auto opened = open_session(args.positional[0], *launch);
    if (!opened) return opened.error();
    KernelSession& session = *opened->session;
    auto resolved = session.resolve();
    if (!resolved) return resolved.error();
    auto linear = linear_block(out.pick, resolved->grid, "the");
    if (!linear) return linear.error();
    auto recorded = session.record_block(*resolved, *linear, *warp);
    if (!recorded) return recorded.error();
    out.run = std::move(*recorded);
    out.kernel = session.kernel().signature ? session.kernel().signature->name : std::string("kernel");
    return out;
}

std::string launches_text(const ProgramRun& run) {
    std::string out;
    for (size_t i = 0; i < run.launches.size() && i < 12; ++i)
        out += (i ? "; " : "") + std::to_string(i + 1) + ": `" + run.launches[i].kernel + "` at " +
               launch_site_text(run.launches[i]);
    if (run.launches.size() > 12) out += "; ...";
    return out;
}

// A whole program or a Python script: run as written on the CPU backend with its launches captured, then the
// chosen launch's block stepped through on its captured inputs.
Result<DebugSubject> program_subject(const Args& args, const SplitRunArgs& split, const std::filesystem::path& path,
                                     bool script, const std::string& source) {
    for (const char* option : {"--set", "--grid", "--block-dim", "--backend"})
        if (args.has(option))
            return make_error(ErrorKind::UserInput,
                              std::string("`") + option + "` is for kernel files with a playground header; " +
                                  path.filename().string() + " is a whole " + (script ? "script" : "program") +
                                  " that chooses its own launches, and the debugger runs it on the CPU backend",
                              "pass the " + std::string(script ? "script" : "program") +
                                  " its own arguments after `--`, and pick its launch with --launch N");
    if (script && !split.include_dirs.empty())
        return make_error(ErrorKind::UserInput, "-I is for C++ programs; a script names its headers' folders itself",
                          "pass include_dirs=[...] to SourceModule in the script");
    auto warp = parse_warp(args);
    if (!warp) return warp.error();
    size_t launch = 1;
    if (args.has("--launch")) {
        auto n = parse_whole_number("--launch", args.get("--launch"), 1, 1000000);
        if (!n) return n.error();
        launch = size_t(*n);
    }
    ProgramRequest request;
    request.path = path.string();
    request.source = source;
    request.args = split.program_args;
    request.include_dirs = split.include_dirs;
    request.capture_limit = uint64_t(256) << 20;
    if (args.has("--time-limit")) {
        auto s = parse_whole_number("--time-limit", args.get("--time-limit"), 1, 86400);
        if (!s) return s.error();
        request.time_limit_s = *s;
    }
    const std::string what = script ? "script" : "program";
    ProgramRun run;
    if (script) {
        ScriptRequest s;
        s.path = path;
        s.args = split.program_args;
        s.backend = "cpu";
        s.time_limit_s = request.time_limit_s;
        s.capture_limit = request.capture_limit;
        auto ran = run_script(s);
        if (!ran) return ran.error();
        run = std::move(ran->run);
    } else {
        auto made = make_program_runner("cpu");
        if (!made) return made.error();
        run = made->runner->run(request);
    }
    if (!run.compiled) {
        for (const Diagnostic& d : run.diagnostics) std::cerr << d.str() << "\n";
        return make_error(ErrorKind::Compile,
                          "the " + what + " did not compile" + (run.error ? ": " + run.error->message : std::string()),
                          "fix the errors above; `cuda-playground run " + args.positional[0] + "` shows them too");
    }
    if (run.launches.empty())
        return make_error(ErrorKind::UserInput,
                          "the " + what + " made no kernel launch (it " + program_end_name(run.end) +
                              (run.error ? ": " + run.error->message : std::string()) + ")",
                          "the debugger steps through a block of one of its launches; check its arguments (after `--`)");
    if (launch > run.launches.size())
        return make_error(ErrorKind::UserInput,
                          "--launch " + std::to_string(launch) + ": the " + what + " made " +
                              count_text(run.launches.size(), "launch", "launches"),
                          "its launches: " + launches_text(run));
    const ProgramLaunch& l = run.launches[launch - 1];
    DebugSubject out;
    out.launch = launch;
    out.launch_line = l.line;
    out.what = what;
    out.kernel = l.instance.empty() ? l.kernel : l.instance;
    out.pick = Dim3{0, 0, 0};
    if (args.has("--block")) {
        auto d = parse_block_index(args.get("--block"));
        if (!d) return d.error();
        out.pick = *d;
    } else if (l.error && l.error->block) {
        out.pick = *l.error->block;  // the block that faulted
    }
    auto linear = linear_block(out.pick, l.grid, "launch " + std::to_string(launch) + "'s");
    if (!linear) return linear.error();
    auto backend = make_backend("cpu");
    if (!backend) return backend.error();
    auto recorded = record_launch_block(*backend->backend, request, run, launch - 1, *linear, *warp);
    if (!recorded) return recorded.error();
    out.run = std::move(*recorded);
    std::cerr << "cuda-playground: the " << what << " ran on the CPU backend ("
              << count_text(run.launches.size(), "launch", "launches") << "); launch " << launch << ", `" << l.kernel
              << "` at " << launch_site_text(l) << " (grid " << l.grid.str() << ", block " << l.block.str()
              << "), stepped through on its inputs as the " << what << " made them\n";
    return out;
}

}  // namespace

int cmd_debug(const std::vector<std::string>& argv) {
    const SplitRunArgs split = split_run_args(argv);
    auto args = parse_args(split.options,
                           {{"--backend", true}, {"--set", true, true}, {"--block", true}, {"--block-dim", true},
                            {"--grid", true}, {"--break", true}, {"--hit", true}, {"--round", true},
                            {"--barrier", true}, {"--threads", true}, {"--watch", true, true}, {"--json"},
                            {"--warp", true}, {"--launch", true}, {"--as-program"}, {"--time-limit", true}});
    if (!args) return user_error(args.error());
    if (args->has("--help")) {
        std::cout << debug_usage();
        return 0;
    }
    if (args->positional.size() != 1)
        return user_error("`debug` needs exactly one FILE", "e.g. cuda-playground debug reduction/shared_reduce --break 30");
    if (int(args->has("--break")) + int(args->has("--round")) + int(args->has("--barrier")) > 1)
        return user_error("--break, --barrier and --round each choose the stop", "give one of them");
    Result<DebugSubject> subject = make_error(ErrorKind::Internal, "no subject", "");
    if (is_script_file(args->positional[0])) {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(args->positional[0], ec))
            return user_error("no such script: " + args->positional[0], "check the path");
        subject = program_subject(*args, split, args->positional[0], true, {});
    } else {
        const std::filesystem::path path = find_kernel_path(args->positional[0]);
        auto file = load_kernel_file(path);
        const bool has_main = file && main_function_line(file->source) > 0;
        if (file && has_main && (args->has("--as-program") || !file->spec.has_metadata))
            subject = program_subject(*args, split, path, false, file->source);
        else
            subject = lesson_subject(*args, split);
    }
    if (!subject) return user_error(subject.error());
    const Dim3 pick = subject->pick;
    const std::optional<BlockDebugRun> recorded(std::move(subject->run));
    const DebugRecording& rec = recorded->recording;
    const std::optional<LaunchFailure>& failure = recorded->failure;
    const DebugTimeline timeline(rec);
    if (rec.rounds == 0 && failure)
        return user_error(make_error(failure->kind,
                                     "the block failed before its first statement: " + failure->named_message(),
                                     failure->hint));
    if (rec.rounds == 0)
        return user_error("the block ran no statement the debugger could see",
                          "the kernel's body is empty, or the stepping copy has no probes");

    // The stop.
    uint32_t round = rec.rounds - 1;
    int line = 0, barrier = 0;
    if (args->has("--barrier")) {
        auto k = parse_whole_number("--barrier", args->get("--barrier"), 1, 1000000);
        if (!k) return user_error(k.error());
        if (size_t(*k) > rec.barriers.size())
            return user_error("the block passes " + std::to_string(rec.barriers.size()) + " __syncthreads() barrier" +
                                  (rec.barriers.size() == 1 ? "" : "s") + ", not " + std::to_string(*k),
                              rec.barriers.empty() ? "this kernel has no __syncthreads() the block reaches: use --break LINE"
                                                   : "give --barrier 1 to " + std::to_string(rec.barriers.size()));
        barrier = *k;
        round = rec.barriers[size_t(*k) - 1];
    } else if (args->has("--round")) {
        auto k = parse_whole_number("--round", args->get("--round"), 0, int(rec.rounds) - 1);
        if (!k) return user_error(k.error());
        round = uint32_t(*k);
    } else if (args->has("--break")) {
        auto l = parse_whole_number("--break", args->get("--break"), 1, 1000000);
        if (!l) return user_error(l.error());
        line = *l;
        int hit = 1;
        if (args->has("--hit")) {
            auto h = parse_whole_number("--hit", args->get("--hit"), 1, 1000000);
            if (!h) return user_error(h.error());
            hit = *h;
        }
        std::optional<uint32_t> at;
        uint32_t from = 0;
        for (int k = 0; k < hit; ++k) {
            at = timeline.first_round_at(line, from);
            if (!at) break;
            from = *at + 1;
        }
        if (!at) {
            std::set<int> lines;
            for (const DebugStep& s : rec.steps) lines.insert(s.line);
            std::string seen;
            for (int l2 : lines) seen += (seen.empty() ? "" : ", ") + std::to_string(l2);
            return user_error("no thread of the block reaches line " + std::to_string(line) +
                                  (hit > 1 ? " " + std::to_string(hit) + " times" : ""),
                              "lines with a statement the block ran: " + seen);
        }
        round = *at;
    }
    uint32_t first = 0, last = rec.threads - 1;
    if (args->has("--threads")) {
        auto range = parse_thread_range(args->get("--threads"), rec.threads);
        if (!range) return user_error(range.error());
        first = range->first;
        last = range->second;
    }
    const std::vector<DebugThreadAt> at = timeline.threads_at(round);
    // The watches, per listed thread: a value, or why there is none (the first reason per expression is shown).
    const std::vector<std::string> watches = args->all("--watch");
    std::map<std::string, std::string> watch_notes;
    auto watched = [&](uint32_t t, const std::string& w) -> std::optional<double> {
        Result<double> v = timeline.watch(t, round, w);
        if (v) return *v;
        watch_notes.emplace(w, v.error().full());
        return std::nullopt;
    };
    auto number_text = [](double x) {
        std::ostringstream o;
        o << std::setprecision(9) << x;
        return o.str();
    };
    const std::string& kernel = subject->kernel;

    if (args->has("--json")) {
        nlohmann::json j;
        j["schema_version"] = 1;
        j["kernel"] = kernel;
        j["block"] = {pick.x, pick.y, pick.z};
        j["block_dim"] = {rec.block_dim.x, rec.block_dim.y, rec.block_dim.z};
        j["launch"] = subject->launch ? nlohmann::json(subject->launch) : nlohmann::json(nullptr);
        j["launch_line"] = subject->launch ? nlohmann::json(subject->launch_line) : nlohmann::json(nullptr);
        j["focus_warp"] = rec.focus_warp >= 0 ? nlohmann::json(rec.focus_warp) : nlohmann::json(nullptr);
        j["rounds"] = rec.rounds;
        j["round"] = round;
        j["break_line"] = line ? nlohmann::json(line) : nlohmann::json(nullptr);
        j["barrier"] = barrier ? nlohmann::json(barrier) : nlohmann::json(nullptr);
        j["barriers"] = rec.barriers;
        j["truncated"] = rec.truncated;
        j["recorded_bytes"] = rec.recorded_bytes();
        j["steps"] = rec.steps.size();
        j["ms"] = rec.ms;
        if (failure) {
            nlohmann::json f = {{"kind", error_kind_name(failure->kind)},
                                {"message", failure->named_message()},
                                {"hint", failure->hint},
                                {"line", failure->line ? nlohmann::json(failure->line) : nlohmann::json(nullptr)}};
            f["thread"] = failure->thread ? nlohmann::json({failure->thread->x, failure->thread->y, failure->thread->z})
                                          : nlohmann::json(nullptr);
            j["failure"] = std::move(f);
        } else {
            j["failure"] = nullptr;
        }
        nlohmann::json threads = nlohmann::json::array();
        for (uint32_t t = first; t <= last; ++t) {
            const DebugThreadAt& a = at[t];
            nlohmann::json one;
            one["thread"] = t;
            const Dim3 d = rec.block_dim;
            one["index"] = {t % d.x, (t / d.x) % d.y, t / (d.x * d.y)};
            one["line"] = a.step ? nlohmann::json(a.step->line) : nlohmann::json(nullptr);
            one["moved"] = a.moved;
            one["returned"] = a.finished;
            nlohmann::json vars = nlohmann::json::object();
            if (a.step)
                for (uint32_t k = 0; k < a.step->variable_count; ++k) {
                    const DebugVariable& v = rec.variables[a.step->first_variable + k];
                    vars[rec.names[v.name]] = value_json(timeline, v);
                }
            one["variables"] = std::move(vars);
            if (!watches.empty()) {
                nlohmann::json w = nlohmann::json::object();
                for (const std::string& e : watches) {
                    const std::optional<double> x = watched(t, e);
                    w[e] = x ? nlohmann::json(*x) : nlohmann::json(nullptr);
                }
                one["watches"] = std::move(w);
            }
            threads.push_back(std::move(one));
        }
        j["threads"] = std::move(threads);
        if (!watches.empty()) j["watch_notes"] = watch_notes;
        nlohmann::json shared = nlohmann::json::array();
        for (size_t a = 0; a < rec.shared.size(); ++a) {
            const DebugSharedArray& s = rec.shared[a];
            nlohmann::json values = nlohmann::json::array();
            const uint64_t n = s.element_size ? s.bytes / s.element_size : 0;
            for (uint64_t i = 0; i < n; ++i) {
                const std::optional<double> x = timeline.shared_number(round, a, i);
                values.push_back(x ? nlohmann::json(*x) : nlohmann::json(timeline.shared_text(round, a, i)));
            }
            nlohmann::json writers = nlohmann::json::array();
            for (int64_t k : timeline.shared_writers(round, a))
                writers.push_back(k < 0 ? nlohmann::json(nullptr) : nlohmann::json(rec.accesses[size_t(k)].thread));
            shared.push_back({{"name", s.name}, {"extents", s.extents}, {"element_size", s.element_size},
                              {"values", std::move(values)}, {"writers", std::move(writers)}});
        }
        j["shared"] = std::move(shared);
        j["accesses_recorded"] = rec.accesses_recorded;
        nlohmann::json touched = nlohmann::json::array();
        for (const DebugTouched& t : timeline.touched(round)) {
            auto ranges = [](const std::vector<std::pair<uint64_t, uint64_t>>& v) {
                nlohmann::json out = nlohmann::json::array();
                for (const auto& [a, b] : v) out.push_back({a, b});
                return out;
            };
            touched.push_back({{"buffer", rec.regions[t.region].name}, {"read", ranges(t.read)},
                               {"written", ranges(t.written)}});
        }
        j["touched"] = std::move(touched);
        std::cout << j.dump(2) << "\n";
        return 0;
    }

    std::cout << "Block (" << pick.x << "," << pick.y << "," << pick.z << ") of " << kernel << ": " << rec.threads
              << " threads, " << rec.rounds << " rounds recorded (" << (rec.recorded_bytes() + 1023) / 1024 << " KiB, "
              << std::fixed << std::setprecision(1) << rec.ms << " ms)" << (rec.truncated ? ", cut at the cap" : "")
              << "\n";
    if (subject->launch)
        std::cout << "Launch " << subject->launch << " of the " << subject->what << " (line " << subject->launch_line
                  << "), on the inputs it had there\n";
    if (rec.focus_warp >= 0)
        std::cout << "Warp " << rec.focus_warp << " steps alone: the other warps wait at their line (`=`) until it "
                     "reaches a __syncthreads() or returns, then they step\n";
    if (failure) {
        std::cout << "The block stopped" << (failure->line ? " at line " + std::to_string(failure->line) : std::string())
                  << (failure->thread ? " in thread (" + std::to_string(failure->thread->x) + "," + std::to_string(failure->thread->y) +
                                                   "," + std::to_string(failure->thread->z) + ")"
                                             : std::string()) << ": "
                  << failure->named_message() << "\n";
        if (!failure->hint.empty()) std::cout << "  " << failure->hint << "\n";
        std::cout << "The recording ends there: the stops below are the block's statements up to the fault.\n";
    }
    // Where the threads are: lines and how many at each.
    std::map<int, uint32_t> at_line;
    uint32_t moved = 0;
    for (const DebugThreadAt& a : at) {
        if (a.step) ++at_line[a.step->line];
        moved += a.moved ? 1 : 0;
    }
    std::cout << "Stopped after round " << round << (line ? " (line " + std::to_string(line) + ")" : "")
              << (barrier ? " (barrier " + std::to_string(barrier) + " of " + std::to_string(rec.barriers.size()) + ")" : "")
              << ": " << moved
              << " of " << rec.threads << " threads stepped;";
    for (const auto& [l, n] : at_line) std::cout << " line " << l << ": " << n << ";";
    std::cout << "\n";
    const uint32_t shown_last = std::min(last, first + 63);
    for (uint32_t t = first; t <= shown_last; ++t) {
        const DebugThreadAt& a = at[t];
        std::ostringstream row;
        row << "  thread " << std::setw(4) << t << "  ";
        if (!a.step) {
            row << "(not started)";
        } else {
            row << "line " << std::setw(4) << a.step->line << (a.moved ? "  " : " =") << " ";
            if (a.finished) row << "(returned) ";
            for (uint32_t k = 0; k < a.step->variable_count; ++k) {
                const DebugVariable& v = rec.variables[a.step->first_variable + k];
                row << " " << rec.names[v.name] << "=" << timeline.value_text(v);
            }
            for (const std::string& e : watches) {
                const std::optional<double> x = watched(t, e);
                row << "  [" << e << "]=" << (x ? number_text(*x) : std::string("?"));
            }
        }
        std::cout << row.str() << "\n";
    }
    for (const auto& [e, why] : watch_notes) std::cout << "  [" << e << "] ?: " << why << "\n";
    if (shown_last < last) std::cout << "  ... " << (last - shown_last) << " more threads (--threads A-B, or --json)\n";
    for (size_t a = 0; a < rec.shared.size(); ++a) {
        const DebugSharedArray& s = rec.shared[a];
        const uint64_t n = s.element_size ? s.bytes / s.element_size : 0;
        const uint64_t row_length = s.extents.size() >= 2 ? s.extents.back() : 16;
        std::cout << "__shared__ " << s.name << dims_text(s.extents) << " after round " << round << ":\n";
        for (uint64_t i = 0; i < n && i < 1024; i += row_length) {
            if (s.extents.size() >= 2) std::cout << "  row " << std::setw(3) << i / row_length << ":";
            else std::cout << "  [" << std::setw(4) << i << "]";
            for (uint64_t k = i; k < std::min(n, i + row_length); ++k) std::cout << " " << timeline.shared_text(round, a, k);
            std::cout << "\n";
        }
        if (n > 1024) std::cout << "  ... " << (n - 1024) << " more elements (--json)\n";
    }
    if (rec.accesses_recorded) {
        std::cout << "Buffer elements the block touched up to round " << round << ":";
        const std::vector<DebugTouched> touched = timeline.touched(round);
        if (touched.empty()) std::cout << " none";
        for (const DebugTouched& t : touched) {
            auto ranges = [&](const char* what, const std::vector<std::pair<uint64_t, uint64_t>>& v) {
                if (v.empty()) return;
                std::cout << " " << rec.regions[t.region].name << "[";
                for (size_t k = 0; k < v.size() && k < 8; ++k)
                    std::cout << (k ? ", " : "") << v[k].first
                              << (v[k].second > v[k].first ? ".." + std::to_string(v[k].second) : std::string());
                std::cout << (v.size() > 8 ? ", ..." : "") << "] " << what << ";";
            };
            ranges("read", t.read);
            ranges("written", t.written);
        }
        std::cout << "\n";
    }
    std::cout << "(`=` marks a thread that did not step in this round: at a barrier, a warp operation, or done)\n";
    return 0;
}

}  // namespace cp::cli
