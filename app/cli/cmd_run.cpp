// `cuda-playground run FILE`: check the options and output paths, then resolve, check the launch against the
// device, compile, launch, time, verify, write views and a JSON result.
//
// Sections: usage · launch images · printing (header, results, sanitizer) · the exit status · the options into
// RunOptions, --sanitize's backend · the session's choices, the runs (main kernel, variants) · the outputs
// (--out-dir, --json, text) and `run`'s exit status · cmd_run
#include "cli/args.h"
#include "cli/chart_output.h"
#include "cli/commands.h"
#include "cli/program_args.h"
#include "cli/run_compare.h"
#include "cli/session_setup.h"
#include "core/cpu/source_prep.h"
#include "core/session/launch_images.h"
#include "core/data/view_export.h"
#include "core/engine/backend.h"
#include "core/kernel_file/kernel_file.h"
#include "core/remote/remote_backend.h"
#include "core/session/coverage.h"
#include "core/session/device_split_check.h"
#include "core/session/report_json.h"
#include "core/session/report_text.h"
#include "core/session/sanitize.h"
#include "core/session/session.h"
#include "core/session/variants.h"
#include "core/text_util.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

namespace cp::cli {

namespace {

std::string run_usage() {
    return R"(usage: cuda-playground run FILE [options]

Runs the kernel in FILE (a path, or a library name such as image/box_blur) as its metadata header
describes: fills the buffers, launches it, times it, checks the results against the kernel's CPU
reference, and writes each output view (PNG for images, CSV for arrays).

A whole program (a file with its own main() and no header) runs as written instead: its host code
against the playground's CUDA runtime, its kernels on the GPU where there is one, else on the CPU
backend with every check; its output is its own, its exit status the run's, and each launch's fault
or refusal is said on stderr.
  cuda-playground run prog.cu [-I DIR]... [--json FILE] [--time-limit S] [-- ARGS...]
  -I DIR                    a further folder its headers are read from (as nvcc's -I)
  --as-program              run a file that has both a main() and a header as a program
  --time-limit S            stop the whole program after S seconds (default: CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S)
  --capture FILE            keep each launch's buffers before and after it (docs/program_capture.md)
  --capture-limit MIB       at most this much data in the capture (default 256); later launches without data
  --save-launch N           save launch N as a lesson with its captured inputs and outputs (the views of a
                            lesson, checked against what the program computed); --out-dir DIR says where
  -- ARGS...                the program's own arguments (its argv[1] on)

A Python script (a .py file using PyCUDA or CuPy) runs as written too: in the system's Python with the
playground's pycuda and cupy, confined (its own folder read only, no network, no programs), its kernels on
the backend; --json, --time-limit, --capture, --save-launch and -- ARGS... as for a program (README: Your
Python scripts; in the window, File > Open shows its launches, each re-run live on its captured inputs).
  cuda-playground run script.py [--json FILE] [--time-limit S] [--capture FILE] [--save-launch N] [-- ARGS...]

)" + backend_option_help(28) +
           R"(  --set NAME=VALUE          set a parameter (repeatable); NAME=PATH for an image buffer loads that image
  --block X[xY[xZ]]         threads per block, e.g. 256 or 16x16 (default: the file's)
  --grid X[xY[xZ]]          blocks per grid (default: the file's expression)
  --until-step K            a file with steps: run steps 1 to K only and write the buffers as step K left
                            them (the check, which is about the last step, is skipped)
  --repeat N                timed launches (default 10 on cuda, 3 on cpu); min/median/max are reported
  --warmup N                untimed launches first (default 1; 0 for none)
  --flush-l2                flush the L2 cache between timed launches
  --no-verify               skip the check against the CPU reference
  --thread-order ORDER      CPU backend: run each block's threads in natural, reversed or shuffled[:SEED]
                            order (a missing __syncthreads() shows in some orders; default:
                            $CUDA_PLAYGROUND_CPU_ORDER, else natural). A GPU picks its own order.
  --coverage                measure which output elements no thread wrote (two extra launches over outputs
                            filled with sentinels) and which more than one thread wrote (a launch of a
                            write-counting variant of the kernel); counts in the JSON, <buffer>_coverage.png
                            in --out-dir
  --trace                   an instrumented launch records per block the SM (GPU) or worker thread (CPU)
                            and its start and end; per-block records in the JSON, timeline.png in --out-dir
  --memory                  a launch of a copy of the kernel that records every global and shared load and
                            store (CPU and CUDA backends): per source line, 32-byte sectors per warp request
                            (and the ideal), shared-memory bank conflicts, active lanes
  --chunk-bytes N           send each input in host->device copies of at most N bytes (many small vs one large)
  --pinned                  copy from/to pinned (page-locked) host memory (CUDA; the CPU backend has no such thing)
  --out-dir DIR             write the output views there (created if missing)
  --json FILE               write the result as JSON (- for stdout; its folder is created if missing), also
                            when an option or the file is refused before the run (`error`, stage "none")
  --compare [OTHER]         also run OTHER (another kernel of FILE, a file or a library name; repeatable) on
                            the same inputs and choices, check it, and print its speed-up over FILE's kernel;
                            without OTHER, the variants FILE's header lists (`compare:`)
  --sanitize TOOL           run under compute-sanitizer: memcheck, racecheck, synccheck or initcheck (CUDA
                            backend); findings give thread, block, buffer and element, and file:line.
                            With --remote, the server's compute-sanitizer runs them and its report comes back

The launch is checked against the device's limits, and the output paths against the file system,
before anything is compiled or run.

Exit status: 0 success; 1 a user error, or a kernel that failed to compile or run (the message on
stderr says what and how to fix it); 2 the result failed its check against the CPU reference;
3 an internal error (a bug: please report it). A buggy-on-purpose lesson (`expect:` in its header)
exits 0 when it fails as it says ("failed as expected") and 2 when it does not. Findings of --sanitize also exit 2.
)";
}

// The coverage maps, error maps (when the check failed) and the timeline, as PNGs next to the views: charts with
// axes and legends where an OpenGL context can be made (chart_output.h), else pixel pictures.
Result<std::vector<std::filesystem::path>> export_launch_images(const RunReport& r, const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> files;
    PictureWriter pictures;
    auto layout_of = [&](const std::string& buffer, uint64_t elements) {
        for (const ResolvedView& v : r.resolved->views)
            if (v.spec.buffer == buffer && v.width > 0) return element_layout(elements, v.width, v.height);
        return element_layout(elements, 0, 0);
    };
    auto saved = [&](const std::filesystem::path& path, const Result<bool>& ok) -> Result<bool> {
        if (!ok) return ok.error();
        files.push_back(path);
        return true;
    };
    for (const CoverageMap& c : r.coverage) {
        if (!c.not_measured.empty() && !c.writers_counted) continue;
        const std::filesystem::path path = dir / (c.buffer + "_coverage.png");
        if (auto ok = saved(path, pictures.coverage(path, c, layout_of(c.buffer, c.elements))); !ok) return ok.error();
    }
    for (const ErrorMap& m : r.error_maps) {
        if (m.mismatched_elements == 0) continue;
        const std::filesystem::path path = dir / (m.buffer + "_error.png");
        if (auto ok = saved(path, pictures.error(path, m, layout_of(m.buffer, m.elements))); !ok) return ok.error();
    }
    if (r.trace)
        if (auto ok = saved(dir / "timeline.png", pictures.timeline(dir / "timeline.png", *r.trace)); !ok)
            return ok.error();
    return files;
}

// What is about to run: printed before the launch, so a launch that hangs has been announced.
void print_header(const RunReport& r, const DeviceInfo& device) {
    std::cout << r.title << " (" << r.kernel << ") on " << r.backend << ": " << r.device << "\n";
    if (const std::string where = device.where; !where.empty()) std::cout << "  where:    " << where << "\n";
    if (r.resolved && !r.resolved->steps.empty()) {
        for (const ResolvedStep& s : r.resolved->steps) {
            std::cout << "  step " << s.index << ":   " << s.kernel << ": grid " << s.grid.str() << ", block "
                      << s.block.str() << " (" << s.grid.count() << (s.grid.count() == 1 ? " block" : " blocks") << " of "
                      << s.block.count() << " threads)";
            if (s.dynamic_shared_bytes > 0) std::cout << ", " << s.dynamic_shared_bytes << " B dynamic shared";
            if (s.repeat > 1) std::cout << ", " << s.repeat << " launches in a row";
            std::cout << "\n";
        }
    } else if (r.resolved) {
        const Dim3& grid = r.resolved->grid;
        const Dim3& block = r.resolved->block;
        const uint64_t threads = block.count();
        const uint64_t warps = (threads + device.warp_size - 1) / device.warp_size;
        std::cout << "  launch:   grid " << grid.str() << ", block " << block.str() << " (" << count_text(threads, "thread")
                  << ", " << count_text(warps, "warp") << " per block; " << count_text(grid.count(), "block") << ")\n";
    }
    if (r.resolved && r.resolved->thread_order) std::cout << "  threads:  " << r.resolved->thread_order->str() << " order in each block\n";
    // Only when it compiled: a launch the device refuses is refused before compiling, and "0.0 ms" would say otherwise.
    if (r.compiled && (r.failed_stage == RunStage::None || r.failed_stage > RunStage::Compile)) {
        std::cout << "  compile:  " << std::fixed << std::setprecision(1) << r.compile_ms << " ms"
                  << (r.cache_hit ? " (cached)" : "");
        if (r.usage.registers >= 0) std::cout << ", " << r.usage.registers << " registers";
        if (r.usage.static_shared_bytes >= 0) std::cout << ", " << r.usage.static_shared_bytes << " B static shared";
        if (r.usage.spill_store_bytes > 0) std::cout << ", " << r.usage.spill_store_bytes << " B spilled";
        std::cout << "\n";
    }
    for (const auto& d : r.diagnostics) {
        if (d.severity != Severity::Error) std::cout << "  " << d.str() << "\n";
    }
    for (const auto& issue : r.launch_issues) {
        if (issue.severity == Severity::Warning) std::cout << "  warning:  " << issue.message << "\n";
    }
    std::cout << std::flush;
}

void print_results(const RunReport& r, const DeviceInfo& device) {
    // Fixed notation throughout: with the default one, a precision of 1 or 2 prints 900 GB/s or 104 MB as
    // "9e+02" and "1e+02" (and which one applied depended on what was printed before).
    std::cout << std::fixed;
    if (r.launched) {
        std::cout << std::setprecision(4) << "  time:     median " << r.timing.median_ms << " ms (min " << r.timing.min_ms
                  << ", max " << r.timing.max_ms << " over " << r.timing.samples_ms.size()
                  << (r.steps.empty() ? " launches, " : " timed passes over all steps, ")
                  << (r.timing.cpu_time ? "CPU wall clock" : "CUDA events") << ")\n";
        for (const StepReport& s : r.steps) {
            std::cout << std::setprecision(4) << "            step " << s.index << " " << s.kernel << ": " << s.total_ms
                      << " ms";
            if (s.repeat > 1) std::cout << " (" << s.repeat << " launches, median " << s.timing.median_ms << " ms each)";
            if (r.timing.median_ms > 0) std::cout << std::setprecision(3) << ", " << 100 * s.total_ms / r.timing.median_ms << "%";
            std::cout << "\n";
        }
        const TransferTimes& t = r.transfers;
        std::cout << std::setprecision(4) << "  steps:    allocate " << t.allocate_ms << " ms, host->device " << t.upload_ms
                  << " ms (" << std::setprecision(2) << double(t.upload_bytes) / 1e6 << " MB in " << t.uploads
                  << (t.uploads == 1 ? " copy" : " copies") << "), kernel " << std::setprecision(4)
                  << t.kernel_ms << " ms, device->host " << t.download_ms << " ms (" << std::setprecision(2)
                  << double(t.download_bytes) / 1e6 << " MB); total " << std::setprecision(4) << t.total_ms() << " ms"
                  << (t.pinned ? ", pinned host memory" : "") << "\n";
        if (r.streams) {
            std::cout << "  streams:  " << r.streams->summary() << ", split over " << r.streams->param << " = "
                      << r.streams->elements << "\n";
            std::istringstream lines(streams_timeline_text(*r.streams));
            for (std::string line; std::getline(lines, line);) std::cout << "            " << line << "\n";
        }
        if (r.device_split) print_device_split(*r.device_split);
        std::cout << std::setprecision(1) << "  bandwidth: " << bandwidth_text(r.bandwidth_gbps);
        if (r.bandwidth_fraction > 0) {
            const size_t devices = r.device_split && top_lines_are_split(*r.device_split) ? r.device_split->parts.size() : 1;
            std::cout << " (" << r.bandwidth_fraction * 100 << "% of "
                      << (devices > 1 ? std::to_string(devices) + " devices' " : std::string("the device's "))
                      << std::setprecision(0) << device.copy_bandwidth_gbps << " GB/s copy bandwidth"
                      << (devices > 1 ? " each" : "") << ")";
        }
        std::cout << "\n";
    }
    for (const CoverageMap& c : r.coverage) {
        std::cout << "  coverage: `" << c.buffer << "`: " << c.summary() << "\n";
        if (const std::string w = c.writers_summary(); !w.empty()) std::cout << "            `" << c.buffer << "`: " << w << "\n";
    }
    if (r.trace) {
        uint64_t t0 = UINT64_MAX, t1 = 0;
        for (const auto& b : r.trace->blocks) {
            t0 = std::min(t0, b.start_ns);
            t1 = std::max(t1, b.end_ns);
        }
        std::cout << std::setprecision(4) << "  trace:    " << r.trace->blocks.size() << " blocks on "
                  << r.trace->units_used << (r.trace->unit == "sm" ? " SMs" : " CPU workers") << " over "
                  << (t1 > t0 ? double(t1 - t0) / 1e6 : 0.0) << " ms; instrumented median "
                  << r.trace->timing.median_ms << " ms";
        if (r.timing.median_ms > 0) std::cout << " (" << r.trace->timing.median_ms / r.timing.median_ms << "x plain)";
        std::cout << "\n";
    }
    if (r.memory) {
        std::cout << std::setprecision(3) << "  memory:   " << memory_recording_note(*r.memory) << "; recording launch "
                  << r.memory->ms << " ms";
        if (r.timing.median_ms > 0) std::cout << " (" << r.memory->ms / r.timing.median_ms << "x plain)";
        std::cout << "\n";
        std::istringstream lines(memory_figures_text(*r.memory));
        for (std::string line; std::getline(lines, line);) std::cout << "            " << line << "\n";
        if (r.memory->figures.empty()) std::cout << "            no global or shared load or store was made\n";
    }
    if (!r.printf_output.empty()) {
        std::cout << "  printf:\n";
        size_t start = 0;
        int lines = 0;
        while (start < r.printf_output.size() && lines < 40) {
            const size_t end = r.printf_output.find('\n', start);
            std::cout << "    " << r.printf_output.substr(start, end - start) << "\n";
            ++lines;
            if (end == std::string::npos) break;
            start = end + 1;
        }
        if (start < r.printf_output.size() && lines >= 40) std::cout << "    ... (more in --json output)\n";
    }
    // The first mismatches are listed below the verdict, buffer by buffer.
    if (const std::string verdict = verdict_text(r, VerdictOf::Run, false); !verdict.empty())
        std::cout << "  check:    " << verdict << "\n";
    if (r.verified == false) {
        std::cout << std::defaultfloat << std::setprecision(6);  // tolerances as written (1e-06, 0.001)
        for (const ErrorMap& m : r.error_maps) {
            if (m.mismatched_elements == 0) continue;
            std::cout << "            `" << m.buffer << "`: " << with_thousands(m.mismatched_elements) << " of "
                      << with_thousands(m.elements) << " elements differ by more than " << m.tolerance;
            if (m.mismatched_components.size() > 1) {
                static const char* names[] = {"x", "y", "z", "w"};
                std::cout << " (per component:";
                for (size_t c = 0; c < m.mismatched_components.size() && c < 4; ++c)
                    std::cout << " " << names[c] << " " << with_thousands(m.mismatched_components[c]);
                std::cout << ")";
            }
            std::cout << "\n";
            for (size_t i = 0; i < m.first_mismatches.size() && i < 5; ++i)
                std::cout << "              " << m.first_mismatches[i] << "\n";
        }
    }
    if (!r.expect.empty()) {
        std::cout << "  lesson:   " << expected_outcome_text(r) << "\n";
        if (!r.learn.empty()) std::cout << "  learn:    " << r.learn << "\n";
    }
}

// The exit status for one report, with its error on stderr (see run_usage()).
int exit_status(const RunReport& report) {
    // A buggy-on-purpose lesson succeeds when it fails as it says, and fails (2) when it does not.
    if (report.as_expected == true) {
        if (report.error) std::cerr << "note: failed as expected: " << report.error->message << "\n";
        return 0;
    }
    if (report.as_expected == false && !report.error) return 2;
    if (report.as_expected == false && report.failed_stage != RunStage::Compile) {
        std::cerr << "error: " << report.error->message << "\n";
        return 2;
    }
    if (report.error) {
        size_t errors = 0;
        if (report.failed_stage == RunStage::Compile) {
            for (const auto& d : report.diagnostics) {
                if (d.severity != Severity::Error) continue;
                std::cerr << d.str() << "\n";
                ++errors;
            }
        }
        // The compiler's errors are all above, each with its line: the last word counts them rather than
        // repeating the first.
        if (errors > 0 && report.error->kind == ErrorKind::Compile)
            return user_error("the kernel did not compile: " + std::to_string(errors) + " error" +
                                  (errors == 1 ? "" : "s") + ", above",
                              report.error->hint);
        return user_error(*report.error);
    }
    return report.verified.value_or(true) ? 0 : 2;
}

void print_sanitizer(const std::string& tool, const SanitizerSummary& s) {
    if (s.reported_errors < 0 && s.findings.empty()) {
        std::cout << "  " << tool << ": compute-sanitizer did not finish its report (the worker was stopped?)\n";
        return;
    }
    std::cout << "  " << tool << ":  " << (s.findings.empty() ? "no errors" : std::to_string(s.findings.size()) + " finding(s)")
              << "\n";
    for (const auto& f : s.findings) std::cout << "    " << f.message() << "\n";
}

void add_sanitizer_json(nlohmann::json& j, const std::string& tool, const SanitizerSummary& s) {
    nlohmann::json findings = nlohmann::json::array();
    for (const auto& f : s.findings) {
        nlohmann::json x = {{"kind", f.kind}, {"message", f.message()}, {"detail", f.detail}, {"file", f.file},
                            {"line", f.line}, {"address", f.address}};
        if (f.thread) x["thread"] = {f.thread->x, f.thread->y, f.thread->z};
        if (f.block) x["block"] = {f.block->x, f.block->y, f.block->z};
        if (!f.buffer.empty()) x.update({{"buffer", f.buffer}, {"element", f.element}, {"buffer_elements", f.buffer_elements}});
        findings.push_back(x);
    }
    j["sanitizer"] = {{"tool", tool}, {"errors", s.reported_errors}, {"findings", findings}};
}

// What `run`'s options ask for, read and checked before the kernel is opened.
struct RunRequest {
    LaunchOptions launch;
    RunOptions options;
    std::optional<int> repeats;  // --repeat; else the backend's default
    std::optional<ThreadOrderChoice> thread_order;
    std::string json_path;      // --json's value: a file, or - for stdout
    std::string sanitizer_log;  // with --sanitize: where compute-sanitizer's log lands
    std::function<Result<std::unique_ptr<Backend>>()> sanitized_backend;

    // With the JSON on stdout, stdout is the JSON alone.
    bool text_to_stdout() const { return json_path != "-"; }
};

// `run`'s command line, with `run --compare FILE` read as FILE and --compare alone.
Result<Args> parse_run_args(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {{"--backend", true},
                                  {"--remote", true},
                                  {"--set", true, true},
                                  {"--block", true},
                                  {"--grid", true},
                                  {"--until-step", true},
                                  {"--repeat", true},
                                  {"--warmup", true},
                                  {"--flush-l2"},
                                  {"--no-verify"},
                                  {"--coverage"},
                                  {"--trace"},
                                  {"--memory"},
                                  {"--pinned"},
                                  {"--chunk-bytes", true},
                                  {"--out-dir", true},
                                  {"--json", true},
                                  {"--compare", false, true, true},
                                  {"--sanitize", true},
                                  {"--thread-order", true},
                                  {"--as-program"},
                                  {"--time-limit", true},
                                  {"--capture", true},
                                  {"--capture-limit", true},
                                  {"--save-launch", true}});
    // `run --compare FILE`: the optional value took the file.
    if (args && args->positional.empty() && args->all("--compare").size() == 1 && !args->get("--compare").empty()) {
        args->positional.push_back(args->get("--compare"));
        args->values["--compare"] = {""};
    }
    return args;
}

// The options into RunOptions, and the output paths checked, so a mistake costs no compile or run. Returns the
// exit status when one is wrong (its error on stderr).
std::optional<Error> read_run_options(const Args& args, RunRequest& req) {
    // First, so that a refusal of any other option is written there too (refuse_run).
    if (args.has("--json") && args.get("--json") != "-") {
        if (auto ok = check_output_file("--json", args.get("--json")); !ok) return ok.error();
    }
    req.json_path = args.get("--json");
    auto launch = parse_launch_options(args);
    if (!launch) return launch.error();
    req.launch = *launch;
    RunOptions& options = req.options;
    if (args.has("--repeat")) {
        auto n = parse_positive_int("--repeat", args.get("--repeat"));
        if (!n) return n.error();
        req.repeats = *n;
    }
    if (args.has("--warmup")) {
        auto n = parse_whole_number("--warmup", args.get("--warmup"), 0, 1000000);
        if (!n) return n.error();
        options.timing.warmup = *n;
    }
    options.timing.flush_l2 = args.has("--flush-l2");
    options.verify = !args.has("--no-verify");
    options.skipped_check_reason = "--no-verify skipped it";
    options.pinned_host = args.has("--pinned");
    if (args.has("--chunk-bytes")) {
        auto n = parse_positive_int("--chunk-bytes", args.get("--chunk-bytes"));
        if (!n) return n.error();
        options.upload_chunk_bytes = uint64_t(*n);
    }
    if (args.has("--out-dir")) {
        if (auto ok = check_output_folder("--out-dir", args.get("--out-dir")); !ok) return ok.error();
    }

    if (args.has("--thread-order")) {
        ThreadOrderChoice order;
        std::string why;
        if (!parse_thread_order(args.get("--thread-order"), order, &why))
            return make_error(ErrorKind::UserInput, "`--thread-order " + args.get("--thread-order") + "`: " + why,
                              "e.g. --thread-order reversed, or --thread-order shuffled:7");
        req.thread_order = order;
    }

    options.coverage = args.has("--coverage");
    options.trace = args.has("--trace");
    options.memory = args.has("--memory");
    return std::nullopt;
}

// With --sanitize: checks it can be combined and run, and makes the backend whose worker runs under
// compute-sanitizer (here, or the server's over --remote). Returns the exit status when it cannot.
std::optional<Error> prepare_sanitize(const Args& args, RunRequest& req) {
    if (!args.has("--sanitize")) return std::nullopt;
    if (req.launch.backend == "cpu")
        return make_error(ErrorKind::UserInput, "--sanitize runs compute-sanitizer, which needs the CUDA backend",
                          "on the CPU backend out-of-bounds accesses are always reported; drop --backend cpu");
    if (args.has("--compare"))
        return make_error(ErrorKind::UserInput, "--sanitize and --compare cannot be combined", "sanitize one kernel at a time");
    // Over --remote the server looks for its own compute-sanitizer; this machine needs none.
    auto setup = prepare_sanitizer(args.get("--sanitize"), req.launch.remote.empty());
    if (!setup) return setup.error();
    req.sanitizer_log = setup->log_path;
    if (!req.launch.remote.empty()) {
        RemoteOptions remote = remote_options_from_environment(req.launch.backend);
        remote.prefix = req.launch.remote;
        remote.sanitize_tool = setup->tool;
        remote.sanitizer_log = setup->log_path;  // where the server's log lands as the link closes
        req.sanitized_backend = [remote] { return make_remote_backend(remote); };
    } else {
        req.sanitized_backend = [setup = *setup]() -> Result<std::unique_ptr<Backend>> {
            auto made = make_sanitized_backend(setup);
            if (!made)
                return make_error(ErrorKind::Unsupported,
                                  "--sanitize needs the CUDA backend, and it cannot run here: " + made.error().message,
                                  "run on a machine with an NVIDIA GPU");
            return made;
        };
    }
    return std::nullopt;
}

// What needs the opened engine: --sanitize a GPU, --thread-order a backend that follows one (then set in the
// session's choices). Returns the exit status when it is missing.
std::optional<Error> check_session_choices(const RunRequest& req, OpenedSession& opened) {
    Engine& engine = *opened.engine;
    KernelSession& session = *opened.session;
    if (!req.sanitizer_log.empty() && !engine.device().caps.gpu)
        return make_error(ErrorKind::Unsupported, "--sanitize needs the CUDA backend, and it cannot run here",
                          "run on a machine with an NVIDIA GPU");
    if (req.thread_order) {
        if (!engine.capabilities().thread_order) {
            const Error e = thread_order_unavailable(engine.device());
            return make_error(e.kind, "--thread-order: " + e.message, e.hint);
        }
        RunChoices with_order = session.choices();
        with_order.thread_order = req.thread_order;
        session.set_choices(std::move(with_order));
    }
    return std::nullopt;
}

// What the runs left, for the outputs, the text and the exit status.
struct RunResults {
    // Where the kernels run: "remote: `ssh gpu01` -> host gpu01 (cuda backend, NVIDIA H100 ...)", or "" here.
    std::string where;
    KernelFile kernel;  // the session's kernel file, as it ran
    RunReport report;
    DeviceInfo device;
    SanitizerSummary sanitized;
    std::vector<VariantRun> others;  // the compared variants, in --compare's order
    bool header_printed = false;
};

// The variants' runs on the main kernel's inputs and choices; with the text on stdout, each printed as it
// goes, after the main kernel's results.
void run_variants(KernelSession& session, CompareRunner& compare, const RunRequest& req, RunResults& r) {
    VariantHooks hooks;
    if (req.text_to_stdout()) {
        if (!r.header_printed) print_header(r.report, r.device);
        print_results(r.report, r.device);
        r.header_printed = true;
        const DeviceInfo& device = r.device;
        hooks.starting = [](const std::string& name) { std::cout << "compared with " << name << ":\n"; };
        hooks.unreadable = [](const std::string&, const Error& e) { std::cout << "  error:    " << e.message << "\n"; };
        hooks.before_launch = [&](const RunReport& so_far) { print_header(so_far, device); };
        hooks.after = [&](const RunReport& done) { print_results(done, device); };
    }
    r.others = compare.run(session, r.report, req.options, hooks);
}

// The main kernel's run, announced before its launch, then the sanitizer's findings or the compared variants'
// runs. Returns the exit status when --compare names none that can run.
std::optional<int> run_kernels(const Args& args, RunRequest& req, OpenedSession& opened, CompareRunner& compare,
                               RunResults& r) {
    Engine& engine = *opened.engine;
    KernelSession& session = *opened.session;
    r.kernel = session.kernel();
    // Limits the device has whatever the kernel is are checked by run() before it compiles.
    req.options.timing.repeats = req.repeats.value_or(engine.capabilities().default_repeats);
    if (req.text_to_stdout()) {
        // Printed before the launch, so a launch that hangs (until the watchdog ends it) has been announced.
        req.options.before_launch = [&](const RunReport& so_far) {
            print_header(so_far, session.device());
            r.header_printed = true;
        };
    }

    // Variants on the same inputs (the same --set, --block, --grid), each checked the same way; those of the same
    // file are loaded by the main kernel's compile.
    std::vector<std::string> compare_list;
    if (args.has("--compare")) {
        auto names = compare_names(args, r.kernel);
        if (!names) return user_error(names.error().message, names.error().hint);
        compare_list = *names;
        session.set_also_kernels(compare.prepare(r.kernel, compare_list));
    }
    r.report = session.run(req.options);
    r.device = session.device();
    if (!req.sanitizer_log.empty()) {
        // The worker must end for compute-sanitizer to finish its log.
        opened.session.reset();
        opened.engine.reset();
        r.sanitized = finish_sanitizing(req.sanitizer_log, r.kernel, r.report);
    }
    if (!compare_list.empty()) run_variants(session, compare, req, r);
    return std::nullopt;
}

// With --out-dir, after a launch: the output views and the launch images written there. `problem` says what
// could not be written.
std::vector<std::filesystem::path> write_out_dir(const Args& args, const RunReport& report, std::string& problem) {
    std::vector<std::filesystem::path> written;
    if (!report.launched || !args.has("--out-dir")) return written;
    std::vector<ExportView> views;
    for (const ResolvedView& v : report.resolved->views) views.push_back({v.spec, v.width, v.height});
    auto files = export_views(views, report.outputs, args.get("--out-dir"));
    if (files) written = *files;
    else problem = files.error().full();
    if (problem.empty()) {
        auto more = export_launch_images(report, args.get("--out-dir"));
        if (more) written.insert(written.end(), more->begin(), more->end());
        else problem = more.error().full();
    }
    return written;
}

// The result as JSON, on stdout (--json -) or into the file (its folder created if missing). Returns the exit
// status when the file cannot be written.
std::optional<int> write_json(const Args& args, const RunRequest& req, const RunResults& r,
                              const std::vector<std::filesystem::path>& written) {
    nlohmann::json j = run_report_json(r.report, written);
    j["where"] = r.where.empty() ? "local" : r.where;
    if (!r.others.empty()) add_variants_json(j, r.report, r.others);
    if (!req.sanitizer_log.empty()) add_sanitizer_json(j, args.get("--sanitize"), r.sanitized);
    const std::string json = json_text(j);
    if (req.json_path == "-") {
        std::cout << json << "\n";
        return std::nullopt;
    }
    std::error_code ec;
    if (const auto folder = std::filesystem::path(req.json_path).parent_path(); !folder.empty())
        std::filesystem::create_directories(folder, ec);
    std::ofstream out(req.json_path);
    out << json << "\n";
    if (!out)
        return user_error("cannot write " + req.json_path,
                          "check that its folder is writable and the disk is not full");
    return std::nullopt;
}

// A refusal before anything ran (an option, the file, the backend): said on stderr as always and, when --json was
// asked, written as the run's JSON too (nothing resolved, the error at stage `none`), so that a script that asked
// for JSON always gets some. Not when --json's own file is what was refused (req.json_path then still empty).
int refuse_run(const Args& args, const RunRequest& req, const Error& error) {
    const int status = user_error(error);
    if (!args.has("--json") || req.json_path.empty()) return status;
    RunReport report;
    report.error = error;
    report.failed_stage = RunStage::None;
    RunResults results;
    results.report = std::move(report);
    RunRequest nothing_ran = req;
    nothing_ran.sanitizer_log.clear();  // no sanitizer ran either
    (void)write_json(args, nothing_ran, results, {});  // a file it cannot write it says so itself; the status stays
    return status;
}

// The text on stdout once the runs are done: the results (or, with variants, the speed-ups) and the files written.
void print_run_text(const Args& args, const RunRequest& req, const RunResults& r,
                    const std::vector<std::filesystem::path>& written) {
    if (r.others.empty()) {
        if (!r.header_printed) print_header(r.report, r.device);
        print_results(r.report, r.device);
        if (!req.sanitizer_log.empty()) print_sanitizer(args.get("--sanitize"), r.sanitized);
        if (!r.kernel.spec.compare.empty())
            std::cout << "  compare:  this lesson compares " << r.report.kernel << " with "
                      << join(r.kernel.spec.compare, ", ") << ": add --compare to run them too\n";
    } else {
        print_speedups(r.report, r.others);
    }
    // With the JSON on stdout, the files are its `outputs`: a line after it would make stdout no JSON.
    for (const auto& f : written) std::cout << "  wrote:    " << f.string() << "\n";
}

// `run`'s exit status (see run_usage()) once the outputs are written: the main kernel's, or with variants the worst.
int run_exit_status(const RunResults& r) {
    if (r.others.empty()) {
        // Sanitizer findings are a failed check (2), also when memcheck's stop made the launch fail.
        if (!r.sanitized.findings.empty() || r.sanitized.reported_errors > 0) return 2;
        return exit_status(r.report);
    }
    // Each checked; the worse status wins (a user error over a failed check).
    int status = exit_status(r.report);
    for (const VariantRun& o : r.others) {
        const int one = o.report ? exit_status(*o.report) : user_error(o.problem);
        status = status == 1 || one == 1 ? 1 : std::max(status, one);
    }
    return status;
}

}  // namespace

int cmd_run(const std::vector<std::string>& argv) {
    const SplitRunArgs split = split_run_args(argv);
    auto args = parse_run_args(split.options);
    if (!args) return user_error(args.error());
    if (args->has("--help")) {
        std::cout << run_usage();
        return 0;
    }
    if (args->positional.size() != 1) {
        return user_error("`run` needs exactly one FILE", "e.g. cuda-playground run image/box_blur (see `list`)");
    }
    // A whole program (a main() and no header, or --as-program) runs as written.
    auto program = program_command(*args, split);
    if (!program) return user_error(program.error());
    if (*program) return run_program(**program);

    // Everything that can be checked without the kernel comes first: a mistake here costs no compile or run.
    RunRequest req;
    if (auto refused = read_run_options(*args, req)) return refuse_run(*args, req, *refused);
    if (auto refused = prepare_sanitize(*args, req)) return refuse_run(*args, req, *refused);
    auto opened = open_session(args->positional[0], req.launch, req.sanitized_backend);
    if (!opened) return refuse_run(*args, req, opened.error());
    CompareRunner compare(*opened->engine);
    RunResults results;
    results.where = opened->engine->device().where;
    if (auto refused = check_session_choices(req, *opened)) return refuse_run(*args, req, *refused);
    if (auto stop = run_kernels(*args, req, *opened, compare, results)) return *stop;

    std::string export_problem;
    const std::vector<std::filesystem::path> written = write_out_dir(*args, results.report, export_problem);
    if (args->has("--json"))
        if (auto stop = write_json(*args, req, results, written)) return *stop;
    if (req.text_to_stdout()) print_run_text(*args, req, results, written);
    if (!export_problem.empty()) return user_error("could not write the output views: " + export_problem);
    return run_exit_status(results);
}

}  // namespace cp::cli
