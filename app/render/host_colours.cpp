// The display pass on the CPU (see host_colours.h); keep in step with kDisplayCompute in colormap_pass.cpp.
#include "render/host_colours.h"

#include "core/data/colormap.h"
#include "render/display_probe.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace cp::render {

std::array<double, 4> element_texel(ElemType type, const std::byte* data, size_t i) {
    const ElemTypeInfo& info = elem_info(type);
    const TexelFormat f = texel_format(type);
    std::array<double, 4> t{0, 0, 0, 1};
    for (uint32_t c = 0; c < info.components && c < 4; ++c) {
        const std::byte* p = data + i * info.size + size_t(c) * info.component_size;
        auto read = [p](auto tag) {
            decltype(tag) v;
            std::memcpy(&v, p, sizeof v);
            return double(v);
        };
        double v = 0;
        switch (type) {
            case ElemType::Char: v = read(int8_t{}); break;
            case ElemType::UChar: case ElemType::UChar2: case ElemType::UChar3: case ElemType::UChar4:
                v = read(uint8_t{});
                break;
            case ElemType::Short: v = read(int16_t{}); break;
            case ElemType::UShort: v = read(uint16_t{}); break;
            case ElemType::Int: case ElemType::Int2: case ElemType::Int3: case ElemType::Int4: v = read(int32_t{}); break;
            case ElemType::UInt: case ElemType::UInt2: case ElemType::UInt3: case ElemType::UInt4:
                v = read(uint32_t{});
                break;
            case ElemType::LongLong: v = read(int64_t{}); break;
            case ElemType::ULongLong: v = read(uint64_t{}); break;
            case ElemType::Float: case ElemType::Float2: case ElemType::Float3: case ElemType::Float4:
                v = read(float{});
                break;
            case ElemType::Double: v = read(double{}); break;
        }
        // Converted on the host to float (RGBA32F) where the type has no texture format; alpha then 0.
        t[c] = f.host_conversion ? double(float(v)) : v;
    }
    if (f.host_conversion && info.components < 4) t[3] = 0;
    return t;
}

std::pair<double, double> display_limits(const DisplaySettings& settings, ValueRange range) {
    if (settings.auto_range && range.valid) return {range.min, range.max};
    return {settings.range_min, settings.range_max};
}

std::array<uint8_t, 4> shade_texel(const std::array<double, 4>& texel, const TexelFormat& f,
                                   const DisplaySettings& settings, double lo_d, double hi_d) {
    // In single precision, as the shader computes.
    const float lo = float(lo_d), hi = float(hi_d);
    const float span = hi > lo ? hi - lo : 1.0f;
    auto byte = [](float x) { return uint8_t(std::lround(std::clamp(x, 0.0f, 1.0f) * 255.0f)); };
    const int channel = shown_channel(settings.channel, f);
    if (channel >= 0 || f.data_components == 1) {
        const float v = float(texel[size_t(std::max(channel, 0))]);
        if (std::isnan(v)) return {255, 0, 255, 255};
        const float t = std::clamp((v - lo) / span, 0.0f, 1.0f) * 255.0f;
        const auto& table = colormap_table(colormap_names()[size_t(settings.colormap)]);
        const size_t a = size_t(t), b = std::min<size_t>(a + 1, 255);
        const float w = t - float(a);
        std::array<uint8_t, 4> out{0, 0, 0, 255};
        for (size_t k = 0; k < 3; ++k)
            out[k] = byte((float(table[a][k]) * (1 - w) + float(table[b][k]) * w) / 255.0f);
        return out;
    }
    std::array<uint8_t, 4> out{};
    for (size_t k = 0; k < 3; ++k) out[k] = byte((float(texel[k]) - lo) / span);
    if (f.data_components == 2) out[2] = 0;
    out[3] = f.data_components == 4 && settings.show_alpha ? byte((float(texel[3]) - lo) / span) : 255;
    return out;
}

namespace {

// The range and the colours over elements stored as `stored` (the buffer's own type, or float4 for the types a
// texture holds converted), shown with the format `f` of the buffer's type.
ValueRange range_of(ElemType stored, const TexelFormat& f, const std::byte* data, size_t count, int channel) {
    const int shown = shown_channel(channel, f);
    const int first = shown >= 0 ? shown : 0, last = shown >= 0 ? shown : std::min(f.data_components, 3) - 1;
    ValueRange r;
    for (size_t i = 0; i < count; ++i) {
        const std::array<double, 4> t = element_texel(stored, data, i);
        for (int c = first; c <= last; ++c) {
            const float v = float(t[size_t(c)]);
            if (!std::isfinite(v)) continue;
            if (!r.valid || v < r.min) r.min = v;
            if (!r.valid || v > r.max) r.max = v;
            r.valid = true;
        }
    }
    return r;
}

std::vector<uint8_t> shade_all(ElemType stored, const TexelFormat& f, const std::byte* data, size_t n,
                               const DisplaySettings& settings, ValueRange range) {
    const auto [lo, hi] = display_limits(settings, range);
    std::vector<uint8_t> pixels(n * 4);
    for (size_t i = 0; i < n; ++i) {
        const std::array<uint8_t, 4> c = shade_texel(element_texel(stored, data, i), f, settings, lo, hi);
        std::memcpy(&pixels[i * 4], c.data(), 4);
    }
    return pixels;
}

}  // namespace

ValueRange host_value_range(ElemType type, const std::byte* data, size_t count, int channel) {
    return range_of(type, texel_format(type), data, count, channel);
}

std::vector<uint8_t> shade_on_host(ElemType type, const std::byte* data, int width, int height,
                                   const DisplaySettings& settings, ValueRange range) {
    return shade_all(type, texel_format(type), data, size_t(width) * size_t(height), settings, range);
}

HostShaded shade_texture_on_host(const BufferTexture& source, const DisplaySettings& settings) {
    const TexelFormat& f = source.format();
    const size_t n = size_t(source.width()) * size_t(source.height());
    // Read back as stored: the buffer's own bytes, or float4 for the types converted on upload.
    const ElemType stored = f.host_conversion ? ElemType::Float4 : source.type();
    std::vector<std::byte> bytes(n * elem_info(stored).size);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glGetTextureImage(source.texture().id(), 0, f.host_conversion ? GL_RGBA : f.format,
                      f.host_conversion ? GL_FLOAT : f.type, GLsizei(bytes.size()), bytes.data());
    HostShaded out;
    out.range = range_of(stored, f, bytes.data(), n, settings.channel);
    out.pixels = shade_all(stored, f, bytes.data(), n, settings, out.range);
    return out;
}

void upload_shaded(const std::vector<uint8_t>& pixels, int width, int height, Texture& display) {
    if (!display || display.width() != width || display.height() != height)
        display = Texture::create_2d(GL_RGBA8, width, height, mip_levels_for(width, height));
    if (display_faults().host_upload) {
        // A test's broken upload: the picture stays blank, as on a GPU after a fault (a new texture's memory would
        // otherwise hold whatever the last one freed there).
        const uint8_t blank[4] = {0, 0, 0, 0};
        glClearTexImage(display.id(), 0, GL_RGBA, GL_UNSIGNED_BYTE, blank);
        return;
    }
    if (pixels.size() < size_t(width) * size_t(height) * 4) return;
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTextureSubImage2D(display.id(), 0, 0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
    if (display.levels() > 1) glGenerateTextureMipmap(display.id());
}

}  // namespace cp::render
