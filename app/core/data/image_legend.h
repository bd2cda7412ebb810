// A legend strip under a picture the command line writes (coverage maps): a colour swatch and a label per
// entry, one entry a line, drawn with stb_easy_font so the PNG explains itself on a slide.
#pragma once

#include "core/data/image_io.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace cp {

struct LegendEntry {
    std::array<uint8_t, 3> rgb;
    std::string label;
};

// `image` (RGBA) with the legend below it, widened with the background when the labels need more room.
Image with_legend(const Image& image, const std::vector<LegendEntry>& entries);

}  // namespace cp
