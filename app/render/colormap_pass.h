// Turning a buffer texture into something to look at: a GPU pass that normalises values (data min/max or a
// fixed range), picks a channel, and applies a colormap, writing an RGBA8 display texture with mipmaps (compute
// shaders throughout: see colormap_pass.cpp for why).
#pragma once

#include "render/buffer_texture.h"
#include "render/gl_objects.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace cp::render {

enum class Colormap { Gray, Viridis, Magma, Coolwarm };  // the order of core's colormap_names()
const std::vector<std::string>& colormap_names();  // in enum order; matches ViewSpec::colormap spelling
Colormap colormap_from_name(const std::string& name);  // unknown -> Gray

struct DisplaySettings {
    int channel = -1;           // -1: all (colour for 2-4 components); 0..3: one component, colormapped
    Colormap colormap = Colormap::Gray;
    bool auto_range = true;     // data min/max; else [range_min, range_max]
    double range_min = 0, range_max = 1;
    bool show_alpha = false;    // false: alpha forced to 1 (kernels often leave it 0)
};

struct ValueRange {
    double min = 0, max = 0;
    bool valid = false;  // false when there was no finite value
};

class ColormapPass {
public:
    static Result<std::unique_ptr<ColormapPass>> create();
    ~ColormapPass();

    // Min and max over the finite values of one channel (or of the colour channels for channel -1).
    ValueRange value_range(const BufferTexture& source, int channel);

    // Draws `source` into `display` (RGBA8, same size, mipmapped) with the given settings and range.
    void render(const BufferTexture& source, const DisplaySettings& settings, ValueRange range, Texture& display);

private:
    ColormapPass() = default;
    Program display_[3];   // per SamplerKind: colours level 0, averages level 1
    Program range_[3];
    Program downsample_;   // one mip level from the one above
    Texture lut_;          // one row per colormap, 256 texels wide
    GLuint range_buffer_ = 0;
};

}  // namespace cp::render
