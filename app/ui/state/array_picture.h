// A script's NumPy array as a picture (issue 37): an (h, w, 3) or (h, w, 4) uint8 array is an image as it is, any
// other 2D array (h, w) or (h, w, 1) of numbers is a grey picture from its smallest value (black) to its largest
// (white). The Program panel shows a launch's buffers so; ImGui-free, tested directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cp::ui {

struct ArrayPicture {
    int width = 0, height = 0;
    std::vector<uint8_t> rgba;  // width x height, 4 bytes each, top row first
    bool colour = false;        // (h, w, 3|4) uint8: the array's own colours; else grey from lo to hi
    double lo = 0, hi = 0;      // the grey picture's range (its values' finite min and max)
};

// NumPy's element size for `dtype` ("float32": 4), 0 for a type not shown ("complex64", "float16", "").
size_t dtype_size(const std::string& dtype);
// Element `i` of `data` as a double, `dtype` one dtype_size knows.
double dtype_value(const std::byte* data, const std::string& dtype, size_t i);

// The picture of `bytes` holding an array of `dtype` and `shape`, or nullopt when it is not one (1D, 3D with
// another last axis, a size that does not match, a side past 16384).
std::optional<ArrayPicture> array_picture(const std::vector<std::byte>& bytes, const std::string& dtype,
                                          const std::vector<uint64_t>& shape);

}  // namespace cp::ui
