// The default docking layout: the output takes the large central area (and inherits the space of panels the
// user closes), code and library on the left, logs below them, the controls under the output. Used on the
// first start (no saved layout) and by View > Reset layout; afterwards Dear ImGui's ini file remembers the
// user's arrangement.
#pragma once

#include "ui/panels/panel.h"

#include <imgui.h>

#include <memory>
#include <vector>

namespace cp::ui {

// Fractions of the work area.
constexpr float kSideWidth = 0.36f;       // the left column (editor, library; logs below)
constexpr float kSideBottomHeight = 0.34f;
constexpr float kBelowHeight = 0.33f;     // the controls under the output

// Rebuilds dockspace `id` over `pos`/`size` with every panel in its slot, the in_front ones selected.
void build_default_layout(ImGuiID id, ImVec2 pos, ImVec2 size,
                                              const std::vector<std::unique_ptr<Panel>>& panels);

}  // namespace cp::ui
