// The default docking layout: the output takes the large central area (and inherits the space of panels the
// user closes), code and library on the left, logs below them, the controls under the output. Used on the
// first start (no saved layout), by View > Reset layout, and when a lesson whose `show:` names other panels
// opens (it brings them to a column beside the output); otherwise Dear ImGui's ini file remembers the
// user's arrangement.
#pragma once

#include "ui/panels/panel.h"

#include <imgui.h>

#include <memory>
#include <string>
#include <vector>

namespace cp::ui {

// Fractions of the work area.
constexpr float kSideWidth = 0.36f;       // the left column (editor, library; logs below)
constexpr float kSideBottomHeight = 0.34f;
constexpr float kBelowHeight = 0.21f;     // the controls under the output (the picture comes first)
constexpr float kStageWidth = 0.46f;      // of the output's node: the column of a lesson's `show:` panels

// The panels of a lesson's `show:` that get a column of their own: all but the output itself (Output, and
// Compare, its side-by-side columns).
std::vector<std::string> stage_panels(const std::vector<std::string>& show);

// Rebuilds dockspace `id` over `pos`/`size` with every panel in its slot, the in_front ones selected. The
// panels named in `stage` (stage_panels()) go to a column right of the output instead, the first in front.
void build_default_layout(ImGuiID id, ImVec2 pos, ImVec2 size, const std::vector<std::unique_ptr<Panel>>& panels,
                          const std::vector<std::string>& stage = {});

}  // namespace cp::ui
