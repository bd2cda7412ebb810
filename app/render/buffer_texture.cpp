// Buffer textures: the element-type -> texture-format table, host uploads (with conversion where the
// type has no texture format) and device copies through the DeviceCopier.
#include "render/buffer_texture.h"

#include "render/host_colours.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace cp::render {

TexelFormat texel_format(ElemType type) {
    using S = SamplerKind;
    auto fmt = [](GLenum internal, GLenum format, GLenum gltype, S sampler, int comps, float scale = 1) {
        TexelFormat f;
        f.internal_format = internal;
        f.format = format;
        f.type = gltype;
        f.sampler = sampler;
        f.components = f.data_components = comps;
        f.value_scale = scale;
        return f;
    };
    switch (type) {
        case ElemType::UChar: return fmt(GL_R8, GL_RED, GL_UNSIGNED_BYTE, S::Float, 1, 255);
        case ElemType::UChar2: return fmt(GL_RG8, GL_RG, GL_UNSIGNED_BYTE, S::Float, 2, 255);
        case ElemType::UChar4: return fmt(GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE, S::Float, 4, 255);
        case ElemType::Char: return fmt(GL_R8I, GL_RED_INTEGER, GL_BYTE, S::Int, 1);
        case ElemType::Short: return fmt(GL_R16I, GL_RED_INTEGER, GL_SHORT, S::Int, 1);
        case ElemType::UShort: return fmt(GL_R16UI, GL_RED_INTEGER, GL_UNSIGNED_SHORT, S::UInt, 1);
        case ElemType::Int: return fmt(GL_R32I, GL_RED_INTEGER, GL_INT, S::Int, 1);
        case ElemType::UInt: return fmt(GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, S::UInt, 1);
        case ElemType::Int2: return fmt(GL_RG32I, GL_RG_INTEGER, GL_INT, S::Int, 2);
        case ElemType::Int4: return fmt(GL_RGBA32I, GL_RGBA_INTEGER, GL_INT, S::Int, 4);
        case ElemType::UInt2: return fmt(GL_RG32UI, GL_RG_INTEGER, GL_UNSIGNED_INT, S::UInt, 2);
        case ElemType::UInt4: return fmt(GL_RGBA32UI, GL_RGBA_INTEGER, GL_UNSIGNED_INT, S::UInt, 4);
        case ElemType::Float: return fmt(GL_R32F, GL_RED, GL_FLOAT, S::Float, 1);
        case ElemType::Float2: return fmt(GL_RG32F, GL_RG, GL_FLOAT, S::Float, 2);
        case ElemType::Float4: return fmt(GL_RGBA32F, GL_RGBA, GL_FLOAT, S::Float, 4);
        case ElemType::Double:
        case ElemType::LongLong:
        case ElemType::ULongLong:
        case ElemType::UChar3:
        case ElemType::Int3:
        case ElemType::UInt3:
        case ElemType::Float3: {
            TexelFormat f = fmt(GL_RGBA32F, GL_RGBA, GL_FLOAT, S::Float, 4);
            f.data_components = int(elem_info(type).components);
            f.host_conversion = true;
            return f;
        }
    }
    return fmt(GL_R32F, GL_RED, GL_FLOAT, S::Float, 1);
}

BufferTexture::BufferTexture(ElemType type, int width, int height, DeviceCopier* copier)
    : type_(type), format_(texel_format(type)), copier_(copier) {
    texture_ = Texture::create_2d(format_.internal_format, width, height, 1);
    // Raw data is fetched with texelFetch, never filtered; integer textures require NEAREST anyway.
    glTextureParameteri(texture_.id(), GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTextureParameteri(texture_.id(), GL_TEXTURE_MAG_FILTER, GL_NEAREST);
}

BufferTexture::~BufferTexture() {
    if (copier_ && texture_) copier_->forget(texture_.id());
}

uint64_t BufferTexture::expected_bytes() const {
    return uint64_t(width()) * height() * elem_info(type_).size;
}

bool BufferTexture::can_copy_from_device() const { return copier_ && !format_.host_conversion; }

Result<bool> BufferTexture::upload_from_host(const std::byte* data, size_t bytes) {
    if (bytes < expected_bytes())
        return make_error(ErrorKind::Metadata,
                          "the buffer holds " + std::to_string(bytes) + " bytes but the view needs " +
                              std::to_string(expected_bytes()) + " (" + std::to_string(width()) + "x" +
                              std::to_string(height()) + " " + elem_info(type_).name + ")",
                          "check the view's width and height expressions against the buffer's size");
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    if (!format_.host_conversion) {
        glTextureSubImage2D(texture_.id(), 0, 0, 0, width(), height(), format_.format, format_.type, data);
        return true;
    }
    const size_t n = size_t(width()) * height();
    std::vector<float> rgba(n * 4, 0.0f);
    for (size_t i = 0; i < n; ++i) {
        const std::array<double, 4> t = element_texel(type_, data, i);  // missing components 0, as the texture holds
        for (int c = 0; c < format_.data_components; ++c) rgba[i * 4 + c] = float(t[size_t(c)]);
    }
    glTextureSubImage2D(texture_.id(), 0, 0, 0, width(), height(), GL_RGBA, GL_FLOAT, rgba.data());
    return true;
}

Result<bool> BufferTexture::copy_from_device(uint64_t device_address, size_t bytes) {
    if (!can_copy_from_device())
        return make_error(ErrorKind::Unsupported,
                          std::string("no device path for ") + elem_info(type_).name + " views here",
                          "the output is uploaded from host memory instead");
    if (bytes < expected_bytes())
        return make_error(ErrorKind::Metadata, "the device buffer holds " + std::to_string(bytes) +
                                                   " bytes but the view needs " + std::to_string(expected_bytes()));
    const size_t row_bytes = size_t(width()) * elem_info(type_).size;
    return copier_->copy_to_texture(device_address, row_bytes, size_t(height()), texture_.id());
}

bool BufferTexture::matches_host(const std::byte* data, size_t bytes, int samples, std::string* mismatch) const {
    if (format_.host_conversion || bytes < expected_bytes()) return true;
    const size_t element = elem_info(type_).size;
    const size_t count = size_t(width()) * size_t(height());
    if (count == 0) return true;
    std::vector<std::byte> texel(element);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    for (int k = 0; k < std::max(samples, 2); ++k) {
        const size_t i = samples <= 1 ? 0 : size_t(k) * (count - 1) / size_t(std::max(samples, 2) - 1);
        const int x = int(i % size_t(width())), y = int(i / size_t(width()));
        glGetTextureSubImage(texture_.id(), 0, x, y, 0, 1, 1, 1, format_.format, format_.type, GLsizei(element),
                             texel.data());
        if (std::memcmp(texel.data(), data + i * element, element) != 0) {
            if (mismatch) *mismatch = "texel (" + std::to_string(x) + "," + std::to_string(y) + ")";
            return false;
        }
    }
    return true;
}

std::array<double, 4> BufferTexture::read_element(int x, int y) const {
    std::array<double, 4> out{0, 0, 0, 0};
    if (x < 0 || y < 0 || x >= width() || y >= height()) return out;
    // Read as 32-bit values of the sampler's kind: GL converts the stored format for us.
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    const GLsizei comps = format_.components;
    const GLenum format = comps == 1 ? GL_RED : comps == 2 ? GL_RG : GL_RGBA;
    if (format_.sampler == SamplerKind::Float) {
        float v[4] = {0, 0, 0, 0};
        glGetTextureSubImage(texture_.id(), 0, x, y, 0, 1, 1, 1, format, GL_FLOAT, sizeof v, v);
        for (int c = 0; c < 4; ++c) out[size_t(c)] = double(v[c]) * format_.value_scale;
    } else if (format_.sampler == SamplerKind::Int) {
        int32_t v[4] = {0, 0, 0, 0};
        const GLenum iformat = comps == 1 ? GL_RED_INTEGER : comps == 2 ? GL_RG_INTEGER : GL_RGBA_INTEGER;
        glGetTextureSubImage(texture_.id(), 0, x, y, 0, 1, 1, 1, iformat, GL_INT, sizeof v, v);
        for (int c = 0; c < 4; ++c) out[size_t(c)] = v[c];
    } else {
        uint32_t v[4] = {0, 0, 0, 0};
        const GLenum iformat = comps == 1 ? GL_RED_INTEGER : comps == 2 ? GL_RG_INTEGER : GL_RGBA_INTEGER;
        glGetTextureSubImage(texture_.id(), 0, x, y, 0, 1, 1, 1, iformat, GL_UNSIGNED_INT, sizeof v, v);
        for (int c = 0; c < 4; ++c) out[size_t(c)] = v[c];
    }
    // Round away float noise from the unorm -> float -> byte round trip.
    if (format_.value_scale != 1)
        for (double& d : out) d = double(int64_t(d + 0.5));
    return out;
}

}  // namespace cp::render
