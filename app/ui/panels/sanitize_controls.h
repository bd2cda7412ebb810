// The Launch panel's Sanitize row: a tool (memcheck, racecheck, synccheck, initcheck) and a button that runs
// the kernel once under compute-sanitizer; disabled, with the reason, where it cannot run; the last findings
// listed under it (their lines are marked in the editor).
#pragma once

#include "ui/state/sanitize_state.h"

namespace cp::ui {

void draw_sanitize_controls(SanitizeState& state);

}  // namespace cp::ui
