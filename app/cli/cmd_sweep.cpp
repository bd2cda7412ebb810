// `cuda-playground sweep FILE`: times the kernel over block shapes with repeats, beside the predicted
// occupancy, and marks the best; --json and --csv write the table.
#include "cli/args.h"
#include "cli/chart_output.h"
#include "cli/commands.h"
#include "cli/session_setup.h"
#include "core/session/launch_images.h"
#include "core/engine/launch_validation.h"

#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace cp::cli {

namespace {

std::string sweep_usage() {
    return R"(usage: cuda-playground sweep FILE [options]

Times the kernel in FILE over block shapes (1D problems: 32 to 1024 threads in steps of 32; 2D and 3D:
the usual shapes), each with warm-up and repeats; the grid follows the file's grid expression. Prints the
median time and the occupancy each shape is predicted to reach, and marks the fastest. One compile and one
buffer setup serve every shape.

)" + backend_option_help(28) +
           R"(  --set NAME=VALUE          set a parameter (repeatable)
  --blocks LIST             the shapes to try, e.g. 64,128,256 or 16x16,32x8 (default: see above)
  --repeat N                timed launches per shape (default 10)
  --warmup N                untimed launches per shape first (default 1)
  --json FILE               write the table as JSON (- for stdout)
  --csv FILE                write the table as CSV
  --png FILE                draw the sweep as a chart, 1920 px wide (bars: median time in ms per block shape,
                            the fastest gold; white line: the predicted occupancy in %, on its own axis); without
                            OpenGL (or with CUDA_PLAYGROUND_NO_GL=1) a plain bar picture without axes

Exit status: 0 success, 1 a user error (message on stderr).
)";
}

Result<bool> write_file(const std::string& path, const std::string& text) {
    if (path == "-") {
        std::cout << text << "\n";
        return true;
    }
    std::ofstream out(path);
    out << text;
    if (!out) return make_error(ErrorKind::Io, "cannot write " + path, "check that the folder exists and is writable");
    return true;
}

}  // namespace

int cmd_sweep(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {{"--backend", true}, {"--remote", true}, {"--set", true, true}, {"--blocks", true}, {"--repeat", true},
                                  {"--warmup", true}, {"--json", true}, {"--csv", true}, {"--png", true}});
    if (!args) return user_error(args.error());
    if (args->has("--help")) {
        std::cout << sweep_usage();
        return 0;
    }
    if (args->positional.size() != 1)
        return user_error("`sweep` needs exactly one FILE", "e.g. cuda-playground sweep image/box_blur (see `list`)");
    auto launch = parse_launch_options(*args);
    if (!launch) return user_error(launch.error());
    SweepOptions options;
    if (args->has("--repeat")) {
        auto n = parse_positive_int("--repeat", args->get("--repeat"));
        if (!n) return user_error(n.error());
        options.repeats = *n;
    }
    if (args->has("--warmup")) {
        auto n = parse_positive_int("--warmup", args->get("--warmup"));
        if (!n) return user_error(n.error());
        options.warmup = *n;
    }
    if (args->has("--blocks")) {
        std::stringstream list(args->get("--blocks"));
        std::string item;
        while (std::getline(list, item, ',')) {
            auto d = parse_dim3(item);
            if (!d) return user_error("--blocks: " + d.error().message, d.error().hint);
            options.blocks.push_back(*d);
        }
    }
    auto opened = open_session(args->positional[0], *launch);
    if (!opened) return user_error(opened.error());
    KernelSession& session = *opened->session;
    const bool quiet = args->get("--json") == "-";
    if (!quiet) std::cerr << "sweeping " << session.kernel().path.filename().string() << " on " << session.device().backend << "...\n";
    auto result = session.sweep(options);
    if (!result) return user_error(result.error());
    const SweepResult& r = *result;
    if (!quiet) {
        std::cout << "Sweep of " << r.kernel << " on " << r.backend << ": " << r.device << " (" << r.repeats
                  << " timed launches per shape, " << (session.device().caps.event_timing ? "CUDA events" : "CPU wall clock")
                  << ")\n";
        std::cout << "  " << std::left << std::setw(12) << "block" << std::setw(14) << "grid" << std::right << std::setw(12)
                  << "median ms" << std::setw(12) << "min ms" << std::setw(11) << "occupancy" << "  limited by\n";
        for (size_t i = 0; i < r.configs.size(); ++i) {
            const SweepConfig& c = r.configs[i];
            std::cout << "  " << std::left << std::setw(12) << c.block.str() << std::setw(14) << c.grid.str() << std::right;
            if (c.timed())
                std::cout << std::fixed << std::setprecision(4) << std::setw(12) << c.median_ms << std::setw(12) << c.min_ms;
            else
                std::cout << std::setw(24) << "-";
            std::cout << std::setprecision(0) << std::setw(10) << c.predicted.occupancy * 100 << "%  "
                      << c.predicted.limited_by << (int(i) == r.best ? "   <- best" : "")
                      << (c.timed() ? "" : "   (" + c.skipped + ")") << "\n";
        }
        std::cout << std::setprecision(1) << "  sweep wall time: " << r.wall_ms << " ms for " << r.configs.size()
                  << " shapes\n";
        if (r.best >= 0) std::cout << "  best: block " << r.configs[size_t(r.best)].block.str() << " (--block "
                                   << r.configs[size_t(r.best)].block.str() << ")\n";
    }
    if (args->has("--json"))
        if (auto ok = write_file(args->get("--json"), sweep_json(r)); !ok) return user_error(ok.error());
    if (args->has("--csv"))
        if (auto ok = write_file(args->get("--csv"), sweep_csv(r)); !ok) return user_error(ok.error());
    if (args->has("--png"))
        if (auto ok = PictureWriter().sweep(args->get("--png"), r); !ok) return user_error(ok.error());
    return 0;
}

}  // namespace cp::cli
