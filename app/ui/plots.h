// ImPlot helpers shared by the panels: the app's colormaps (the same tables the renderer and the PNG export
// use) registered with ImPlot, and the colour bar drawn beside every colormapped image.
#pragma once

#include "render/colormap_pass.h"

#include <imgui.h>

namespace cp::ui {

// ImPlot's index of one of the app's colormaps (registered in the current ImPlot context on first use).
int implot_colormap(render::Colormap colormap);

// A vertical colour bar for values min..max with ticks, `label` along it (the buffer and its element type).
void colour_bar(const char* label, double min, double max, render::Colormap colormap, ImVec2 size);

// The width a colour bar with its tick labels needs at the current text size.
float colour_bar_width();

}  // namespace cp::ui
