// Loading and saving images (stb_image), with clear errors for missing, corrupt, truncated or huge files.
#pragma once

#include "core/result.h"

#include <cstdint>
#include <filesystem>
#include <vector>

namespace cp {

struct Image {
    int width = 0, height = 0;
    int channels = 4;              // 1 (gray) or 4 (RGBA); loads always produce 4
    std::vector<uint8_t> pixels;   // row-major, `channels` bytes per pixel
};

// Always returns RGBA8. max_pixels guards against images too large for memory (default 256 Mpixel).
Result<Image> load_image(const std::filesystem::path& path, uint64_t max_pixels = 256ull << 20);
// Nearest-neighbour resize (for making large test and benchmark inputs from the bundled photos).
Image resize_nearest(const Image& image, int width, int height);

Result<bool> save_png(const std::filesystem::path& path, const Image& image);

}  // namespace cp
