// `cuda-playground run FILE`: check the options and output paths, then resolve, check the launch against the
// device, compile, launch, time, verify, write views and a JSON result.
#include "cli/args.h"
#include "cli/commands.h"
#include "core/engine/backend.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/report_json.h"
#include "core/session/session.h"
#include "core/data/view_export.h"

#include <fstream>
#include <iomanip>
#include <iostream>

namespace cp::cli {

namespace {

std::string usage() {
    return R"(usage: cuda-playground run FILE [options]

Runs the kernel in FILE (a path, or a library name such as image/box_blur) as its metadata header
describes: fills the buffers, launches it, times it, checks the results against the kernel's CPU
reference, and writes each output view (PNG for images, CSV for arrays).

)" + backend_option_help(28) + R"(  --set NAME=VALUE          set a parameter (repeatable); NAME=PATH for an image buffer loads that image
  --block X[xY[xZ]]         threads per block, e.g. 256 or 16x16 (default: the file's)
  --grid X[xY[xZ]]          blocks per grid (default: the file's expression)
  --repeat N                timed launches (default 10 on cuda, 3 on cpu); min/median/max are reported
  --warmup N                untimed launches first (default 1; 0 for none)
  --flush-l2                flush the L2 cache between timed launches
  --no-verify               skip the check against the CPU reference
  --out-dir DIR             write the output views there (created if missing)
  --json FILE               write the result as JSON (- for stdout; its folder is created if missing)

The launch is checked against the device's limits, and the output paths against the file system,
before anything is compiled or run.

Exit status: 0 success; 1 a user error, or a kernel that failed to compile or run (the message on
stderr says what and how to fix it); 2 the result failed its check against the CPU reference;
3 an internal error (a bug: please report it).
)";
}

// What is about to run: printed before the launch, so a launch that hangs has been announced.
void print_header(const RunReport& r, const DeviceInfo& device) {
    std::cout << r.title << " (" << r.kernel << ") on " << r.backend << ": " << r.device << "\n";
    if (r.resolved) {
        const Dim3& grid = r.resolved->grid;
        const Dim3& block = r.resolved->block;
        const uint64_t threads = block.count();
        std::cout << "  launch:   grid " << grid.str() << ", block " << block.str() << " (" << threads
                  << " threads, " << (threads + device.warp_size - 1) / device.warp_size << " warps per block; "
                  << grid.count() << " blocks)\n";
    }
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
    if (r.launched) {
        std::cout << std::setprecision(4) << "  time:     median " << r.timing.median_ms << " ms (min " << r.timing.min_ms
                  << ", max " << r.timing.max_ms << " over " << r.timing.samples_ms.size() << " launches, "
                  << (r.timing.cpu_time ? "CPU wall clock" : "CUDA events") << ")\n";
        std::cout << std::setprecision(1) << "  bandwidth: " << r.bandwidth_gbps << " GB/s";
        if (r.bandwidth_fraction > 0) {
            std::cout << " (" << r.bandwidth_fraction * 100 << "% of the device's " << std::setprecision(0)
                      << device.copy_bandwidth_gbps << " GB/s copy bandwidth)";
        }
        std::cout << "\n";
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
    if (r.verified) {
        std::cout << std::defaultfloat << "  check:    " << (*r.verified ? "verified" : "FAILED") << " against the CPU reference (max abs error "
                  << r.max_abs_error << ", " << r.mismatches << " mismatches)\n";
        if (!*r.verified) std::cout << "            first mismatch: " << r.mismatch_detail << "\n";
    } else if (r.launched) {
        std::cout << "  check:    not verified (no CPU reference)\n";
    }
}

}  // namespace

int cmd_run(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {{"--backend", true},
                                  {"--set", true, true},
                                  {"--block", true},
                                  {"--grid", true},
                                  {"--repeat", true},
                                  {"--warmup", true},
                                  {"--flush-l2"},
                                  {"--no-verify"},
                                  {"--out-dir", true},
                                  {"--json", true}});
    if (!args) return user_error(args.error().message, args.error().hint);
    if (args->has("--help")) {
        std::cout << usage();
        return 0;
    }
    if (args->positional.size() != 1) {
        return user_error("`run` needs exactly one FILE", "e.g. cuda-playground run image/box_blur (see `list`)");
    }

    // Everything that can be checked without the kernel comes first: a mistake here costs no compile or run.
    auto launch = parse_launch_options(*args);
    if (!launch) return user_error(launch.error().message, launch.error().hint);
    RunOptions options;
    std::optional<int> repeats;
    if (args->has("--repeat")) {
        auto n = parse_positive_int("--repeat", args->get("--repeat"));
        if (!n) return user_error(n.error().message);
        repeats = *n;
    }
    if (args->has("--warmup")) {
        auto n = parse_whole_number("--warmup", args->get("--warmup"), 0, 1000000);
        if (!n) return user_error(n.error().message);
        options.timing.warmup = *n;
    }
    options.timing.flush_l2 = args->has("--flush-l2");
    options.verify = !args->has("--no-verify");
    const std::string json_path = args->get("--json");
    if (args->has("--out-dir")) {
        if (auto ok = check_output_folder("--out-dir", args->get("--out-dir")); !ok) return user_error(ok.error().message, ok.error().hint);
    }
    if (args->has("--json") && json_path != "-") {
        if (auto ok = check_output_file("--json", json_path); !ok) return user_error(ok.error().message, ok.error().hint);
    }

    auto file = load_kernel_file(find_kernel_path(args->positional[0]));
    if (!file) return user_error(file.error().message, file.error().hint);
    if (!file->spec.has_metadata) {
        return user_error(file->path.filename().string() + " has no /*@playground ... */ metadata header, so its buffers and "
                          "launch configuration are unknown",
                          "add a header (see kernels/FORMAT.md), or use `cuda-playground compile` to compile it only");
    }
    if (has_errors(file->diagnostics)) {
        for (const auto& d : file->diagnostics) std::cerr << d.str() << "\n";
        return user_error("the kernel file has errors (listed above)", "fix them, then run again");
    }

    auto made = make_backend(launch->backend);
    if (!made) return user_error(made.error().message, made.error().hint);
    for (const auto& [name, why] : made->passed_over) {
        std::string reason = why;
        if (auto cut = reason.find(": the CUDA backend is unavailable"); cut != std::string::npos) reason.resize(cut);
        std::cerr << "note: the " << name << " backend cannot run here (" << reason << "); running on the "
                  << made->backend->info().device.backend << " backend\n";
    }
    Engine engine(std::move(made->backend));
    KernelSession session(engine);
    session.set_kernel(std::move(*file));
    // The same checks and messages as the window's --set/--block/--grid (core/session/run_choices.h).
    RunChoices choices;
    choices.block = launch->block;
    choices.grid = launch->grid;
    for (const auto& [name, value] : launch->sets) {
        auto ok = apply_set(session.kernel(), choices, name, value);
        if (!ok) return user_error(ok.error().message, ok.error().hint);
    }
    session.set_choices(std::move(choices));
    // Limits the device has whatever the kernel is are checked by run() before it compiles.
    options.timing.repeats = repeats.value_or(engine.capabilities().default_repeats);
    const bool text_to_stdout = json_path != "-";
    bool header_printed = false;
    if (text_to_stdout) {
        // Printed before the launch, so a launch that hangs (until the watchdog ends it) has been announced.
        options.before_launch = [&](const RunReport& so_far) {
            print_header(so_far, session.device());
            header_printed = true;
        };
    }

    RunReport report = session.run(options);
    std::vector<std::filesystem::path> written;
    std::string export_problem;
    if (report.launched && args->has("--out-dir")) {
        std::vector<ExportView> views;
        for (const ResolvedView& v : report.resolved->views) views.push_back({v.spec, v.width, v.height});
        auto files = export_views(views, report.outputs, args->get("--out-dir"));
        if (files) written = *files;
        else export_problem = files.error().full();
    }
    if (args->has("--json")) {
        const std::string json = run_report_json(report, written);
        if (json_path == "-") {
            std::cout << json << "\n";
        } else {
            std::error_code ec;
            if (const auto folder = std::filesystem::path(json_path).parent_path(); !folder.empty())
                std::filesystem::create_directories(folder, ec);
            std::ofstream out(json_path);
            out << json << "\n";
            if (!out) return user_error("cannot write " + json_path, "check that its folder is writable and the disk is not full");
        }
    }
    if (text_to_stdout) {
        if (!header_printed) print_header(report, session.device());
        print_results(report, session.device());
    }
    for (const auto& f : written) std::cout << "  wrote:    " << f.string() << "\n";
    if (!export_problem.empty()) return user_error("could not write the output views: " + export_problem);
    if (report.error) {
        if (report.failed_stage == RunStage::Compile) {
            for (const auto& d : report.diagnostics) {
                if (d.severity == Severity::Error) std::cerr << d.str() << "\n";
            }
        }
        return user_error(report.error->message, report.error->hint);
    }
    return report.verified.value_or(true) ? 0 : 2;
}

}  // namespace cp::cli
