// Colormaps for showing scalar data as colour (PNG export here; the window samples the same table).
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

}  // namespace cp
