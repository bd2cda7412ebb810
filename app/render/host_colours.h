// The display pass done on the CPU: what colour the window gives each element of a buffer texture (the same
// normalising, channel choice, colormap table and alpha as colormap_pass.cpp's shader). It is what the
// display check compares the GPU's picture with, and the path a picture takes when that pass cannot be trusted:
// coloured here and uploaded as plain RGBA8, as the font atlas is.
#pragma once

#include "render/buffer_texture.h"
#include "render/colormap_pass.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cp::render {

// Element `i`'s components as the display shader reads them (texelFetch times the format's value scale):
// missing components are 0 and alpha 1, 8-bit normalised ones come back as their byte values.
std::array<double, 4> element_texel(ElemType type, const std::byte* data, size_t i);

// The range the display uses: `settings`' fixed range, or the finite min..max of the shown channels in `range`.
std::pair<double, double> display_limits(const DisplaySettings& settings, ValueRange range);

// The colour (RGBA8) the display pass gives one texel of a texture of format `f`.
std::array<uint8_t, 4> shade_texel(const std::array<double, 4>& texel, const TexelFormat& f, const DisplaySettings& settings,
                                   double lo, double hi);

// The data range over the finite values of `channel` (or the colour channels, -1) of `count` elements.
ValueRange host_value_range(ElemType type, const std::byte* data, size_t count, int channel);

// Every element of a width x height buffer coloured as the display pass would (RGBA8, row after row).
std::vector<uint8_t> shade_on_host(ElemType type, const std::byte* data, int width, int height,
                                   const DisplaySettings& settings, ValueRange range);

// The buffer texture read back whole and coloured here (when a picture must be coloured on the host and no copy
// of its values is at hand), with the range it was coloured with.
struct HostShaded {
    std::vector<uint8_t> pixels;
    ValueRange range;
};
HostShaded shade_texture_on_host(const BufferTexture& source, const DisplaySettings& settings);

// Puts host-coloured pixels (RGBA8, width x height) in `display`, made or remade to that size with its mip chain:
// the path of the font atlas, which needs no shader.
void upload_shaded(const std::vector<uint8_t>& pixels, int width, int height, Texture& display);

}  // namespace cp::render
