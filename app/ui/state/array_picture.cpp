// array_picture (array_picture.h).
#include "ui/state/array_picture.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace cp::ui {

size_t dtype_size(const std::string& t) {
    if (t == "uint8" || t == "int8" || t == "bool") return 1;
    if (t == "uint16" || t == "int16") return 2;
    if (t == "uint32" || t == "int32" || t == "float32") return 4;
    if (t == "uint64" || t == "int64" || t == "float64") return 8;
    return 0;
}

double dtype_value(const std::byte* data, const std::string& t, size_t i) {
    const std::byte* p = data + i * dtype_size(t);
    auto get = [p](auto v) {
        std::memcpy(&v, p, sizeof v);
        return double(v);
    };
    if (t == "uint8" || t == "bool") return get(uint8_t());
    if (t == "int8") return get(int8_t());
    if (t == "uint16") return get(uint16_t());
    if (t == "int16") return get(int16_t());
    if (t == "uint32") return get(uint32_t());
    if (t == "int32") return get(int32_t());
    if (t == "float32") return get(float());
    if (t == "uint64") return get(uint64_t());
    if (t == "int64") return get(int64_t());
    if (t == "float64") return get(double());
    return 0;
}

std::optional<ArrayPicture> array_picture(const std::vector<std::byte>& bytes, const std::string& dtype,
                                          const std::vector<uint64_t>& shape) {
    const size_t size = dtype_size(dtype);
    if (!size || shape.size() < 2 || shape.size() > 3) return std::nullopt;
    const uint64_t h = shape[0], w = shape[1], c = shape.size() == 3 ? shape[2] : 1;
    if (h < 2 || w < 2 || h > 16384 || w > 16384 || !(c == 1 || c == 3 || c == 4)) return std::nullopt;
    if (c != 1 && dtype != "uint8") return std::nullopt;  // colour only as bytes; a float RGB array is not guessed at
    if (bytes.size() != h * w * c * size) return std::nullopt;
    ArrayPicture pic;
    pic.width = int(w);
    pic.height = int(h);
    pic.rgba.resize(size_t(h * w) * 4);
    const auto* data = bytes.data();
    if (c != 1) {
        pic.colour = true;
        for (size_t i = 0; i < size_t(h * w); ++i) {
            for (size_t k = 0; k < 3; ++k) pic.rgba[i * 4 + k] = uint8_t(data[i * c + k]);
            pic.rgba[i * 4 + 3] = c == 4 ? uint8_t(data[i * c + 3]) : 255;
        }
        return pic;
    }
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (size_t i = 0; i < size_t(h * w); ++i) {
        const double v = dtype_value(data, dtype, i);
        if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    }
    if (!(lo <= hi)) lo = hi = 0;
    if (dtype == "uint8") lo = 0, hi = 255;  // bytes are grey levels as they are
    pic.lo = lo;
    pic.hi = hi;
    const double scale = hi > lo ? 255.0 / (hi - lo) : 0;
    for (size_t i = 0; i < size_t(h * w); ++i) {
        const double v = dtype_value(data, dtype, i);
        const uint8_t g = std::isfinite(v) ? uint8_t(std::lround(std::clamp((v - lo) * scale, 0.0, 255.0))) : 0;
        pic.rgba[i * 4 + 0] = pic.rgba[i * 4 + 1] = pic.rgba[i * 4 + 2] = g;
        pic.rgba[i * 4 + 3] = 255;
    }
    return pic;
}

}  // namespace cp::ui
