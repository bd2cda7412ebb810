// cuda-playground: subcommands (cli/command_list.cpp: list, info, compile, run...) for scripts and people; without
// one, the window.
#include "cli/args.h"
#include "cli/commands.h"
#include "core/engine/launch_validation.h"
#include "core/toolkit/sanitizer_report.h"
#include "core/kernel_file/kernel_file.h"
#include "core/text_util.h"

#ifdef CP_HAVE_GUI
#include "ui/app.h"
#endif

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <new>
#include <string>
#include <vector>

namespace {

// The largest --size on either side: OpenGL drivers commonly allow framebuffers of at most 16384 pixels.
constexpr unsigned kMaxWindowSide = 16384;

// "usage: cuda-playground [window options]   ..." and one line per subcommand, its summary in one column.
std::string usage_lines() {
    auto line = [](const char* lead, const std::string& what, const std::string& summary) {
        std::string text = std::string(lead) + "cuda-playground " + what;
        text.resize(std::max<size_t>(text.size() + 1, 49), ' ');
        return text + summary + "\n";
    };
    std::string out = line("usage: ", "[window options]", "open the window (the default demo, or --open FILE)");
    for (const cp::cli::Command& c : cp::cli::commands())
        out += line("       ", std::string(c.name) + " " + c.synopsis, c.summary);
    return out;
}

std::vector<std::string> command_names() {
    std::vector<std::string> names;
    for (const cp::cli::Command& c : cp::cli::commands()) names.push_back(c.name);
    return names;
}

std::string usage() {
    return "CUDA Playground: write CUDA kernels, run them, see what they do.\n\n" + usage_lines() + R"(
Window options:
  --open FILE              open this .cu file instead of the last one
  --set NAME=VALUE         set a parameter (repeatable)
  --block X[xY[xZ]]        block size;  --grid X[xY[xZ]]  grid size
)" + cp::cli::backend_option_help(25) + R"(  --present                start in presentation mode (F11 toggles it): the output full screen
  --show PANEL             show this panel in front of its tab group, e.g. --show "Launch view" (repeatable)
  --line N                 put the editor's cursor on line N (the Code panel shows what that line compiled to)
  --break LINE             a breakpoint on LINE for the Debug panel (repeatable); shows the Debug panel
  --debug-block X,Y,Z      the block the Debug panel steps through (default 0,0,0)
  --debug-barrier K        the Debug panel's first stop: the Kth __syncthreads() of the block
  --watch EXPR             a watch for the Debug panel, e.g. --watch "in[i] * 2" (repeatable)
  --debug-warp W           the Debug panel watches warp W, stepping alone (the other warps wait)
  --debug-launch N         for a program or script: the Debug panel steps through its Nth launch
  --coverage               start with "Measure coverage" on: never-written and written-twice elements shown
  --memory                 start with the Memory panel's switch on: sectors and bank conflicts per line in
                           the editor, a warp's requests drawn lane by lane (CPU backend)
  --text-size X            text size for this run, 0.6 to 3 (default: the saved one, Ctrl +/- changes it)
  --size WxH               window size (headless: the picture's size), default 1600x1000
  --headless               render the UI offscreen (EGL, no display needed)
  --frames N               headless: render N frames (default 3), then exit
  --screenshot FILE.png    save the last frame as PNG (headless or window)
  --thread-order ORDER     CPU backend: natural, reversed or shuffled[:SEED] order of each block's threads
  --sanitize TOOL          run the opened kernel once under compute-sanitizer (memcheck, racecheck,
                           synccheck or initcheck; CUDA backend); findings are marked on their lines.
                           Headless: printed, exit 2 on findings, 1 when it cannot run

Run `cuda-playground COMMAND --help` for a command's options.

Exit status: 0 success; 1 a mistake in the command, a file or a setting, or a kernel that failed (the
message on stderr says what and how to fix it); 2 `run`: the result failed its check against the CPU
reference; 3 an internal error (a bug in CUDA Playground: please report it).
)";
}

#ifdef CP_HAVE_GUI
int run_window(const std::vector<std::string>& argv) {
    using namespace cp::cli;
    auto args = parse_args(argv, {{"--open", true},
                                  {"--set", true, true},
                                  {"--block", true},
                                  {"--grid", true},
                                  {"--backend", true},
                                  {"--remote", true},
                                  {"--headless"},
                                  {"--frames", true},
                                  {"--screenshot", true},
                                  {"--size", true},
                                  {"--present"},
                                  {"--show", true, true},
                                  {"--line", true},
                                  {"--break", true, true},
                                  {"--debug-block", true},
                                  {"--debug-barrier", true}, {"--debug-warp", true}, {"--debug-launch", true},
                                  {"--watch", true, true},
                                  {"--coverage"},
                                  {"--memory"},
                                  {"--text-size", true},
                                  {"--sanitize", true},
                                  {"--thread-order", true}});
    if (!args) return user_error(args.error().message, args.error().hint);
    if (args->has("--help")) {
        std::cout << usage();
        return 0;
    }
    if (!args->positional.empty()) return user_error("unexpected argument `" + args->positional[0] + "`", "see --help");
    cp::ui::AppOptions options;
    options.headless = args->has("--headless");
    if (args->has("--open")) {
        options.open_file = find_kernel_path(args->get("--open")).string();
        // A file that cannot be opened (missing, a folder, not text) ends here with the reason and exit 1, not
        // in an empty window; a file with mistakes in it opens, with its errors marked in the editor.
        if (auto file = cp::load_kernel_file(*options.open_file); !file) return user_error(file.error().message, file.error().hint);
    }
    auto launch = cp::cli::parse_launch_options(*args);
    if (!launch) return user_error(launch.error().message, launch.error().hint);
    options.sets = launch->sets;
    options.block = launch->block;
    options.grid = launch->grid;
    options.backend = launch->backend;
    options.remote = launch->remote;
    if (args->has("--frames")) {
        auto n = parse_positive_int("--frames", args->get("--frames"));
        if (!n) return user_error(n.error().message);
        options.frames = *n;
    }
    if (args->has("--size")) {
        auto d = cp::parse_dim3(args->get("--size"));
        if (!d || d->x < 320 || d->y < 240) return user_error("`--size " + args->get("--size") + "`: expected WIDTHxHEIGHT, at least 320x240");
        // OpenGL drivers allow pictures of at most 16384 (often less) on a side; beyond that the failure would
        // read as a missing driver.
        if (d->x > kMaxWindowSide || d->y > kMaxWindowSide)
            return user_error("`--size " + args->get("--size") + "`: at most " + std::to_string(kMaxWindowSide) +
                                  " pixels on each side (the largest picture OpenGL drivers commonly allow)",
                              "e.g. --size 1920x1080 or --size 3840x2160");
        options.width = int(d->x);
        options.height = int(d->y);
    }
    if (args->has("--text-size")) {
        const std::string text = args->get("--text-size");
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !(v >= 0.6 && v <= 3.0))
            return user_error("`--text-size " + text + "`: expected a number from 0.6 to 3", "e.g. --text-size 1.75");
        options.text_size = float(v);
    }
    if (args->has("--thread-order")) {
        cp::ThreadOrderChoice order;
        std::string why;
        if (!cp::parse_thread_order(args->get("--thread-order"), order, &why))
            return user_error("`--thread-order " + args->get("--thread-order") + "`: " + why,
                              "e.g. --thread-order reversed, or --thread-order shuffled:7");
        options.thread_order = order;
    }
    if (args->has("--sanitize")) {
        options.sanitize = args->get("--sanitize");
        if (!cp::is_sanitizer_tool(options.sanitize))
            return user_error("`--sanitize " + options.sanitize + "`: the tools are memcheck, racecheck, synccheck and initcheck",
                              "e.g. --sanitize memcheck (out-of-bounds accesses)");
    }
    options.present = args->has("--present");
    options.show = args->all("--show");
    if (args->has("--line")) {
        const std::string text = args->get("--line");
        char* end = nullptr;
        const long line = std::strtol(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0' || line < 1 || line > 10000000)
            return user_error("`--line " + text + "` is not a line number", "give a line of the file, e.g. --line 42");
        options.line = int(line);
    }
    for (const std::string& text : args->all("--break")) {
        char* end = nullptr;
        const long line = std::strtol(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0' || line < 1 || line > 10000000)
            return user_error("`--break " + text + "` is not a line number", "give a line of the kernel, e.g. --break 24");
        options.breakpoints.push_back(int(line));
    }
    if (args->has("--debug-block")) {
        const std::string text = args->get("--debug-block");
        unsigned x = 0, y = 0, z = 0;
        char tail = 0;
        const int n = std::sscanf(text.c_str(), "%u,%u,%u%c", &x, &y, &z, &tail);
        if (n < 1 || n > 3 || text.find_first_not_of("0123456789,") != std::string::npos)
            return user_error("`--debug-block " + text + "` is not a block's place in the grid", "e.g. --debug-block 3,0,0");
        options.debug_block = cp::Dim3{x, y, z};
    }
    if (args->has("--debug-barrier")) {
        auto n = parse_positive_int("--debug-barrier", args->get("--debug-barrier"));
        if (!n) return user_error(n.error().message);
        options.debug_barrier = *n;
    }
    options.watches = args->all("--watch");
    if (args->has("--debug-warp")) {
        const std::string text = args->get("--debug-warp");
        if (text.empty() || text.size() > 2 || text.find_first_not_of("0123456789") != std::string::npos ||
            std::stoi(text) > 31)
            return user_error("`--debug-warp " + text + "` is not a warp of a block (0 to 31)", "e.g. --debug-warp 1");
        options.debug_warp = std::stoi(text);
    }
    if (args->has("--debug-launch")) {
        auto n = parse_positive_int("--debug-launch", args->get("--debug-launch"));
        if (!n) return user_error(n.error().message);
        options.debug_launch = size_t(*n);
    }
    options.coverage = args->has("--coverage");
    options.memory = args->has("--memory");
    options.screenshot = args->get("--screenshot");
    return cp::ui::run_app(options);
}
#endif

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    const std::string command = args.empty() ? std::string() : args[0];
    const std::vector<std::string> rest = args.empty() ? args : std::vector<std::string>(args.begin() + 1, args.end());
    try {
        for (const cp::cli::Command& c : cp::cli::commands())
            if (command == c.name) return c.run(rest);
        if (!command.empty() && command[0] != '-') {
            const std::string guess = cp::closest_name(command, command_names());
            return cp::cli::user_error("unknown command `" + command + "`",
                                       guess.empty() ? "see cuda-playground --help" : "did you mean `" + guess + "`?");
        }
        if (command == "--version") {
            std::cout << "cuda-playground " << CP_VERSION << "\n";
            return 0;
        }
#ifdef CP_HAVE_GUI
        return run_window(args);
#else
        if (command == "--help" || command == "-h") {
            std::cout << usage();
            return 0;
        }
        return cp::cli::user_error("this build has no window (configured with -DCP_BUILD_GUI=OFF)",
                                   "use the subcommands: " + cp::join(command_names(), ", "));
#endif
    } catch (const std::bad_alloc&) {
        // Sizes come from the user (--set, images): running out of memory is theirs to fix, not a bug.
        return cp::cli::user_error("there is not enough memory for this run",
                                   "use smaller sizes (--set, a smaller image), or close other programs");
    } catch (const std::exception& e) {
        // A bug, not a user error: say so instead of aborting.
        std::cerr << "internal error: " << e.what() << "\n  please report this with the command you ran\n";
        return 3;
    }
}
