// ImPlot helpers: colormaps and the colour bar.
#include "ui/plots.h"

#include "core/data/colormap.h"

#include <implot.h>

#include <string>

namespace cp::ui {

int implot_colormap(render::Colormap colormap) {
    const std::string& name = render::colormap_names()[size_t(colormap)];
    const std::string key = "cp " + name;  // apart from ImPlot's own "Viridis" and the like
    if (const int index = ImPlot::GetColormapIndex(key.c_str()); index >= 0) return index;
    const auto& table = colormap_table(name);
    ImU32 colours[256];
    for (size_t i = 0; i < 256; ++i) colours[i] = IM_COL32(table[i][0], table[i][1], table[i][2], 255);
    return ImPlot::AddColormap(key.c_str(), colours, 256, false);
}

float colour_bar_width() { return ImGui::GetFontSize() * 6.0f; }

void colour_bar(const char* label, double min, double max, render::Colormap colormap, ImVec2 size) {
    if (!(max > min)) max = min + 1;  // a constant image still gets a readable scale around its value
    ImPlot::ColormapScale(label, min, max, size, "%g", ImPlotColormapScaleFlags_None, implot_colormap(colormap));
}

}  // namespace cp::ui
