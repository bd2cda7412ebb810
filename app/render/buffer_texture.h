// A kernel buffer viewed as a width x height image, held in a GL texture in its own element type
// (uchar4 -> RGBA8, float -> R32F, int -> R32I ...). It is a TextureSink: filled from host memory or
// from device memory through a DeviceCopier. Types a texture cannot hold as-is (3-component vectors,
// double, 64-bit integers) are converted to RGBA32F on the host and have no device path.
#pragma once

#include "core/kernel_file/kernel_spec.h"
#include "render/device_copier.h"
#include "render/gl_objects.h"
#include "render/texture_sink.h"

#include <array>
#include <optional>

namespace cp::render {

enum class SamplerKind { Float, Int, UInt };

// How one element type is stored in a texture.
struct TexelFormat {
    GLenum internal_format = 0, format = 0, type = 0;
    SamplerKind sampler = SamplerKind::Float;
    int components = 1;          // components of the texture (as the shaders see them)
    int data_components = 1;     // components of the element type (3 for float3 stored as RGBA32F)
    float value_scale = 1;       // normalized formats: 255 turns sampled [0,1] back into byte values
    bool host_conversion = false;  // elements are converted to float4 on upload (no device path)
};
TexelFormat texel_format(ElemType type);
// The component a display shows for `channel` (-1: colour) of a texture of format `f`: a channel past the type's
// last is its last.
inline int shown_channel(int channel, const TexelFormat& f) {
    return channel >= f.data_components ? f.data_components - 1 : channel;
}

class BufferTexture final : public TextureSink {
public:
    // `copier` may be null (no device path); it must outlive this texture.
    BufferTexture(ElemType type, int width, int height, DeviceCopier* copier);
    ~BufferTexture() override;
    BufferTexture(const BufferTexture&) = delete;
    BufferTexture& operator=(const BufferTexture&) = delete;

    Result<bool> upload_from_host(const std::byte* data, size_t bytes) override;
    Result<bool> copy_from_device(uint64_t device_address, size_t bytes) override;
    bool can_copy_from_device() const override;

    ElemType type() const { return type_; }
    int width() const { return texture_.width(); }
    int height() const { return texture_.height(); }
    const TexelFormat& format() const { return format_; }
    const Texture& texture() const { return texture_; }
    uint64_t expected_bytes() const;

    // Whether the texture holds `data` (the buffer read back to the host) at `samples` texels spread over it
    // (first, last and evenly between), compared byte for byte; for types converted on the host, always
    // true (they never come from the device). `mismatch` receives the first texel that differs.
    bool matches_host(const std::byte* data, size_t bytes, int samples, std::string* mismatch = nullptr) const;

    // One element's components as numbers (reads the texel back from the GPU; for the pixel inspector).
    std::array<double, 4> read_element(int x, int y) const;

private:
    ElemType type_;
    TexelFormat format_;
    Texture texture_;
    DeviceCopier* copier_;
};

}  // namespace cp::render
