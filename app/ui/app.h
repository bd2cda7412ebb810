// Entry point of the window (GLFW) and of headless mode (EGL, screenshots).
#pragma once

#include "core/types.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cp::ui {

struct AppOptions {
    bool headless = false;
    std::optional<std::string> open_file;                     // a .cu file to open instead of the last one
    std::vector<std::pair<std::string, std::string>> sets;    // --set name=value
    std::optional<Dim3> block, grid;
    std::optional<ThreadOrderChoice> thread_order;            // --thread-order (CPU backend)
    int frames = 0;                 // 0: run until closed (window) / a few frames (headless)
    std::string screenshot;         // PNG path, written after the last frame
    std::string backend = "auto";   // auto | cuda | cpu
    std::string remote;             // --remote PREFIX: kernels run in `PREFIX cuda-playground worker --stdio`
    int width = 1600, height = 1000;  // window / offscreen size (--size)
    std::optional<float> text_size;   // --text-size: this run's text size, not saved
    bool present = false;             // --present: start in presentation mode
    std::vector<std::string> show;    // --show PANEL: panels to show in front of their tab group (slides, docs)
    std::string sanitize;             // --sanitize TOOL: run the opened kernel once under compute-sanitizer
    bool coverage = false;            // --coverage: start with "Measure coverage" on (never-written, written twice)
    bool memory = false;              // --memory: start with the Memory panel's switch on (issue 23)
    int line = 0;                     // --line N: the editor's cursor on line N (the Code panel links it)
    // The debugger (issue 39): --break LINE (repeatable), --debug-block X,Y,Z, --debug-barrier K (the stop at the
    // Kth __syncthreads()), --watch EXPR (repeatable); any of them shows the Debug panel.
    std::vector<int> breakpoints;
    std::optional<Dim3> debug_block;
    int debug_barrier = 0;
    std::vector<std::string> watches;  // --watch EXPR: the Debug panel's watches
    int debug_warp = -1;               // --debug-warp W: the warp watched, stepping alone
    size_t debug_launch = 0;           // --debug-launch N: a program's or script's Nth launch (1-based)
};

// Returns the process exit code; never calls exit().
int run_app(const AppOptions& options);

}  // namespace cp::ui
