// Loading and saving images with stb_image (the implementation comes from Debian's libstb). The header is
// read first so a huge image is refused before any pixel memory is allocated.
#include "core/data/image_io.h"

#include <stb_image.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>

namespace cp {

namespace fs = std::filesystem;

namespace {

std::string quoted(const fs::path& p) { return "`" + p.string() + "`"; }

std::string megapixels(uint64_t pixels) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", double(pixels) / (1 << 20));
    return text;
}

// Width and height from a PNG's IHDR chunk, for a clear size message when stb_image refuses a PNG
// that is too large for it to even describe (it rejects > 1 GiB of decoded pixels in stbi_info).
bool png_dimensions(const std::vector<unsigned char>& bytes, uint64_t& width, uint64_t& height) {
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    if (bytes.size() < 24 || !std::equal(signature, signature + 8, bytes.begin()) ||
        std::string(bytes.begin() + 12, bytes.begin() + 16) != "IHDR")
        return false;
    auto be32 = [&](size_t at) {
        return (uint64_t(bytes[at]) << 24) | (uint64_t(bytes[at + 1]) << 16) | (uint64_t(bytes[at + 2]) << 8) | bytes[at + 3];
    };
    width = be32(16);
    height = be32(20);
    return true;
}

const char* stb_reason() {
    const char* r = stbi_failure_reason();
    return r ? r : "unknown reason";
}

}  // namespace

Result<Image> load_image(const fs::path& path, uint64_t max_pixels) {
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (ec || !fs::exists(status))
        return make_error("image " + quoted(path) + " does not exist", "Check the path (relative paths are looked up in the assets folder and next to the kernel file).");
    if (fs::is_directory(status)) return make_error("image " + quoted(path) + " is a folder, not an image file");
    const auto size = fs::file_size(path, ec);
    if (ec) return make_error("cannot read image " + quoted(path) + ": " + ec.message());
    if (size == 0) return make_error("image " + quoted(path) + " is empty (0 bytes)", "Save the image again, or choose another file.");
    if (size > std::numeric_limits<int>::max())
        return make_error("image " + quoted(path) + " is " + std::to_string(size >> 20) + " MiB; files over 2 GiB are not supported");

    std::ifstream in(path, std::ios::binary);
    std::vector<unsigned char> bytes(size);
    if (!in || !in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size)))
        return make_error("cannot read image " + quoted(path), "Check that you have permission to read it.");

    auto too_large = [&](uint64_t w, uint64_t h) {
        return make_error("image " + quoted(path) + " is " + std::to_string(w) + "x" + std::to_string(h) + " (" +
                              megapixels(w * h) + " Mpixel); the limit is " + megapixels(max_pixels) + " Mpixel",
                          "Scale the image down, or choose a smaller one.");
    };
    int width = 0, height = 0, channels = 0;
    if (!stbi_info_from_memory(bytes.data(), static_cast<int>(size), &width, &height, &channels)) {
        uint64_t png_w = 0, png_h = 0;
        if (png_dimensions(bytes, png_w, png_h) && png_w * png_h > max_pixels) return too_large(png_w, png_h);
        return make_error("image " + quoted(path) + " is not an image stb_image can read (" + stb_reason() + ")",
                          "Supported formats: PNG, JPEG, BMP, TGA, GIF, PSD, HDR, PIC, PNM.");
    }
    const uint64_t pixels = uint64_t(width) * uint64_t(height);
    if (width <= 0 || height <= 0) return make_error("image " + quoted(path) + " has no pixels (" + std::to_string(width) + "x" + std::to_string(height) + ")");
    if (pixels > max_pixels) return too_large(uint64_t(width), uint64_t(height));
    int w = 0, h = 0, c = 0;
    std::unique_ptr<stbi_uc, void (*)(void*)> decoded(
        stbi_load_from_memory(bytes.data(), static_cast<int>(size), &w, &h, &c, 4), stbi_image_free);
    if (!decoded) {
        return make_error("image " + quoted(path) + " could not be decoded (" + stb_reason() + ")",
                          "The file is probably truncated or corrupt; save it again or choose another.");
    }
    Image image;
    image.width = w;
    image.height = h;
    image.channels = 4;
    image.pixels.assign(decoded.get(), decoded.get() + size_t(w) * size_t(h) * 4);
    return image;
}

Result<bool> save_png(const fs::path& path, const Image& image) {
    if (image.width <= 0 || image.height <= 0)
        return make_error("cannot save an empty image (" + std::to_string(image.width) + "x" + std::to_string(image.height) + ") to " + quoted(path));
    if (image.channels < 1 || image.channels > 4)
        return make_error("cannot save " + quoted(path) + ": an image has 1 to 4 channels, not " + std::to_string(image.channels));
    const size_t expected = size_t(image.width) * size_t(image.height) * size_t(image.channels);
    if (image.pixels.size() != expected) {
        return make_error("cannot save " + quoted(path) + ": the image is " + std::to_string(image.width) + "x" +
                          std::to_string(image.height) + "x" + std::to_string(image.channels) + " = " +
                          std::to_string(expected) + " bytes but holds " + std::to_string(image.pixels.size()));
    }
    std::error_code ec;
    const fs::path parent = path.parent_path();
    if (!parent.empty() && !fs::is_directory(parent, ec))
        return make_error("cannot save " + quoted(path) + ": the folder " + quoted(parent) + " does not exist", "Create it first.");
    if (!stbi_write_png(path.c_str(), image.width, image.height, image.channels, image.pixels.data(),
                        image.width * image.channels)) {
        return make_error("could not write " + quoted(path), "Check that the folder is writable and the disk is not full.");
    }
    return true;
}

Image resize_nearest(const Image& image, int width, int height) {
    Image out;
    out.width = width;
    out.height = height;
    out.channels = image.channels;
    const size_t px = size_t(image.channels);
    out.pixels.resize(size_t(width) * size_t(height) * px);
    if (image.width <= 0 || image.height <= 0) return out;
    for (int y = 0; y < height; ++y) {
        const size_t sy = size_t(y) * size_t(image.height) / size_t(height);
        for (int x = 0; x < width; ++x) {
            const size_t sx = size_t(x) * size_t(image.width) / size_t(width);
            std::copy_n(&image.pixels[(sy * size_t(image.width) + sx) * px], px, &out.pixels[(size_t(y) * size_t(width) + size_t(x)) * px]);
        }
    }
    return out;
}

}  // namespace cp
