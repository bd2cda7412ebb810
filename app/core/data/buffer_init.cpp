// Filling host buffers before a launch as the metadata says: zeros, a constant, seeded random numbers,
// a ramp, or an image's pixels (RGBA, gray luma, or normalised floats).
#include "core/data/buffer_init.h"

#include "core/data/elem_access.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace cp {

namespace {

// splitmix64: tiny, fast, and the same sequence on every platform for a given seed.
class SplitMix64 {
public:
    explicit SplitMix64(uint64_t seed) : state_(seed) {}
    uint64_t next() {
        uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double uniform01() { return double(next() >> 11) * 0x1.0p-53; }  // [0, 1)

private:
    uint64_t state_;
};

// BT.601 luma, rounded: the gray value an 8-bit image gives a one-channel buffer.
double luma(const uint8_t* rgba) { return std::floor(0.299 * rgba[0] + 0.587 * rgba[1] + 0.114 * rgba[2] + 0.5); }

Result<bool> fill_from_image(const BufferSpec& spec, HostBuffer& out, const Image* image) {
    if (!image)
        return make_error(ErrorKind::UserInput,
                          "buffer `" + spec.name + "` is filled from an image, but no image was loaded");
    const uint64_t pixels = uint64_t(image->width) * uint64_t(image->height);
    const ElemTypeInfo& info = elem_info(spec.type);
    // A one-component buffer of 3 or 4 values per pixel holds them packed (`rgb[idx * 3 + c]`), as course
    // kernels index an RGB or RGBA image: R, G, B (and A) of each pixel in a row.
    const uint64_t packed = info.components == 1 && pixels > 0 && (out.count() == 3 * pixels || out.count() == 4 * pixels)
                                ? out.count() / pixels
                                : 1;
    if (out.count() != pixels && packed == 1) {
        return make_error(ErrorKind::UserInput,
                          "buffer `" + spec.name + "` has " + std::to_string(out.count()) +
                              " elements but its image `" + spec.init.image + "` is " + std::to_string(image->width) +
                              "x" + std::to_string(image->height) + " = " + std::to_string(pixels) + " pixels",
                          "Make its count `" + spec.name + ".width * " + spec.name + ".height` (e.g. params width = " +
                              spec.name + ".width and height = " + spec.name + ".height, count `width * height`; `width * height * 3` or `* 4` for packed RGB or RGBA bytes).");
    }
    if (image->channels != 1 && image->channels != 4)
        return make_error(ErrorKind::UserInput, "image `" + spec.init.image + "` has " +
                                                    std::to_string(image->channels) + " channels; expected 1 or 4");
    const bool to_float = info.is_float;
    if (spec.type != ElemType::UChar4 && spec.type != ElemType::UChar3 && spec.type != ElemType::UChar &&
        spec.type != ElemType::Float && spec.type != ElemType::Float3 && spec.type != ElemType::Float4) {
        return make_error(ErrorKind::UserInput,
                          std::string("buffer `") + spec.name + "` holds " + info.name + ", which an image cannot fill",
                          "Use uchar4 (RGBA), uchar3, uchar (gray), float (gray 0..1), float3 or float4 (RGBA 0..1).");
    }
    if (spec.type == ElemType::UChar4 && image->channels == 4) {  // the common case: the pixels as they are
        std::memcpy(out.bytes.data(), image->pixels.data(), pixels * 4);
        return true;
    }
    for (uint64_t i = 0; i < pixels; ++i) {
        uint8_t rgba[4];
        if (image->channels == 4) {
            std::memcpy(rgba, &image->pixels[i * 4], 4);
        } else {
            rgba[0] = rgba[1] = rgba[2] = image->pixels[i];
            rgba[3] = 255;
        }
        std::byte* element = out.bytes.data() + i * info.size * packed;
        const double scale = to_float ? 1.0 / 255.0 : 1.0;
        if (packed > 1) {
            for (uint64_t c = 0; c < packed; ++c) write_component(element + c * info.size, spec.type, 0, rgba[c] * scale);
        } else if (info.components == 1) {
            write_component(element, spec.type, 0, luma(rgba) * scale);
        } else {
            for (uint32_t c = 0; c < info.components; ++c) write_component(element, spec.type, c, rgba[c] * scale);
        }
    }
    return true;
}

}  // namespace

Result<bool> fill_buffer(const BufferSpec& spec, HostBuffer& out, const Image* image, const DataFile* data) {
    out.name = spec.name;
    out.type = spec.type;
    const ElemTypeInfo& info = elem_info(spec.type);
    if (out.bytes.size() % info.size != 0) {
        return make_error(ErrorKind::UserInput, "buffer `" + spec.name + "` has " + std::to_string(out.bytes.size()) +
                                                    " bytes, not a whole number of " + info.name + " elements (" +
                                                    std::to_string(info.size) + " bytes each)");
    }
    const uint64_t count = out.count();
    const BufferInit& init = spec.init;
    switch (init.kind) {
        case BufferInit::Kind::Zeros:
            std::fill(out.bytes.begin(), out.bytes.end(), std::byte{0});
            return true;
        case BufferInit::Kind::Constant:
            for (uint64_t i = 0; i < count; ++i)
                for (uint32_t c = 0; c < info.components; ++c)
                    write_component(out.bytes.data() + i * info.size, spec.type, c, init.constant);
            return true;
        case BufferInit::Kind::Ramp:
            for (uint64_t i = 0; i < count; ++i)
                for (uint32_t c = 0; c < info.components; ++c)
                    write_component(out.bytes.data() + i * info.size, spec.type, c, init.start + double(i) * init.step);
            return true;
        case BufferInit::Kind::Random: {
            if (init.min > init.max)
                return make_error(ErrorKind::UserInput, "buffer `" + spec.name + "`: random min is above max");
            SplitMix64 rng(init.seed);
            // Integers: every whole number in [min, max] equally likely (rounding a real would halve the ends).
            const double lo = info.is_float ? init.min : std::ceil(init.min);
            const double hi = info.is_float ? init.max : std::floor(init.max);
            if (!info.is_float && lo > hi)
                return make_error(
                    ErrorKind::UserInput,
                    "buffer `" + spec.name + "`: random(min, max) contains no whole number for an integer buffer");
            for (uint64_t i = 0; i < count; ++i) {
                for (uint32_t c = 0; c < info.components; ++c) {
                    const double u = rng.uniform01();
                    const double v = info.is_float ? lo + u * (hi - lo) : std::min(hi, lo + std::floor(u * (hi - lo + 1)));
                    write_component(out.bytes.data() + i * info.size, spec.type, c, v);
                }
            }
            return true;
        }
        case BufferInit::Kind::Image:
            return fill_from_image(spec, out, image);
        case BufferInit::Kind::Data: {
            if (!data || !data->bytes)
                return make_error(ErrorKind::Internal, "buffer `" + spec.name + "`: its data file was not read");
            const std::vector<std::byte>& file = *data->bytes;
            if (file.size() < out.bytes.size()) {
                return make_error(ErrorKind::UserInput,
                                  "buffer `" + spec.name + "` needs " + std::to_string(count) + " " + info.name +
                                      " elements (" + std::to_string(out.bytes.size()) + " bytes), and its data file `" +
                                      init.data + "` holds " + std::to_string(file.size() / info.size) + " (" +
                                      std::to_string(file.size()) + " bytes)",
                                  "make the buffer's count at most " + std::to_string(file.size() / info.size) +
                                      " (the parameters it depends on smaller), or give a larger file");
            }
            std::copy(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(out.bytes.size()), out.bytes.begin());
            return true;
        }
    }
    return true;
}

}  // namespace cp
