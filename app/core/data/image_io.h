// Loading and saving images (stb_image), with clear errors for missing, corrupt, truncated or huge files.
#pragma once

#include "core/result.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace cp {

struct Image {
    int width = 0, height = 0;
    int channels = 4;              // 1 (gray) or 4 (RGBA); loads always produce 4
    std::vector<uint8_t> pixels;   // row-major, `channels` bytes per pixel
};

constexpr uint64_t kDefaultMaxImagePixels = 256ull << 20;

// Always returns RGBA8. max_pixels guards against images too large for memory (default 256 Mpixel).
Result<Image> load_image(const std::filesystem::path& path, uint64_t max_pixels = kDefaultMaxImagePixels);

// Decodes an image file's bytes (what load_image does once the file is read). `name` is how messages call
// the image, e.g. "image `photo.jpg`". The size is checked from the header before any pixel is decoded, and a
// file cut short is refused (naming its format and where it ends) rather than shown with missing pixels.
Result<Image> decode_image(const uint8_t* bytes, size_t size, const std::string& name,
                           uint64_t max_pixels = kDefaultMaxImagePixels);
// Nearest-neighbour resize (for making large test and benchmark inputs from the bundled photos).
Image resize_nearest(const Image& image, int width, int height);

Result<bool> save_png(const std::filesystem::path& path, const Image& image);

}  // namespace cp
