// The window's Sanitize (ImGui-free): the Launch panel's button and the Run menu ask, the workspace runs the
// kernel once under compute-sanitizer on the runner's thread (core/session/sanitize.h), and the findings stay
// here for the panel's list; their lines are marked in the editor until the text changes.
#pragma once

#include "core/toolkit/sanitizer_report.h"

#include <string>
#include <vector>

namespace cp::ui {

struct SanitizeState {
    std::string tool = "memcheck";  // the chosen tool (core's sanitizer_tools())
    bool requested = false;         // asked; the workspace submits when the runner is idle
    bool running = false;
    std::string unavailable;        // why it cannot run here, in plain words ("" when it can)
    // The last sanitized run: its tool, a one-line result ("memcheck: 1 finding", or why it did not run)
    // and the findings.
    std::string last_tool;
    std::string summary;
    bool failed = false;  // `summary` says why the sanitized run could not be done
    std::vector<SanitizerFinding> findings;
    // Where the button was drawn in the last frame (screen pixels; tests click it); shown = it was on screen.
    float button_x0 = 0, button_y0 = 0, button_x1 = 0, button_y1 = 0;
    bool button_shown = false;
};

}  // namespace cp::ui
