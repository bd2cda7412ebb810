// Colormaps for showing scalar data as colour (PNG export here; the window samples the same table), and the one
// HSV conversion that colours blocks, warps, lanes and units wherever they are drawn.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace cp {

const std::vector<std::string>& colormap_names();  // gray, viridis, magma, coolwarm
bool is_colormap(const std::string& name);

// 256 RGBA8 entries; unknown names give gray.
const std::array<std::array<uint8_t, 4>, 256>& colormap_table(const std::string& name);

// HSV to 8-bit RGB. `hue` is in turns (0 red, 1/3 green, 2/3 blue) and wraps (1.25 is 0.25); saturation and
// value are clamped to [0, 1]. Each channel is rounded to the nearest of 0..255.
std::array<uint8_t, 3> hsv_to_rgb8(double hue, double saturation, double value);

// A colour per index (a block, warp, lane, SM) whose neighbours' colours are far from it: the hue steps by the
// golden ratio's fraction, so consecutive indices never land on nearby hues.
std::array<uint8_t, 3> index_colour(uint64_t index, double saturation, double value);

}  // namespace cp
