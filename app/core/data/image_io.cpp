// Loading and saving images with stb_image (the implementation comes from Debian's libstb). The header is
// read first so a huge image is refused before any pixel memory is allocated, and a file that was cut short
// is refused (image_format.cpp finds where) before stb_image fills its missing pixels with zeros.
#include "core/data/image_io.h"

#include "core/data/image_format.h"

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
bool png_dimensions(const uint8_t* bytes, size_t size, uint64_t& width, uint64_t& height) {
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    if (size < 24 || !std::equal(signature, signature + 8, bytes) || std::string(bytes + 12, bytes + 16) != "IHDR")
        return false;
    auto be32 = [&](size_t at) {
        return (uint64_t(bytes[at]) << 24) | (uint64_t(bytes[at + 1]) << 16) | (uint64_t(bytes[at + 2]) << 8) | bytes[at + 3];
    };
    width = be32(16);
    height = be32(20);
    return true;
}

// stb_image tries every format in turn, so its failure reason is often another format's refusal ("bad png
// sig" for a broken JPEG). Those say nothing about the file; the decoder's own reasons are kept.
std::string stb_reason() {
    const char* r = stbi_failure_reason();
    const std::string reason = r ? r : "";
    for (const char* other_format : {"bad png sig", "not BMP", "not GIF", "not PSD", "not HDR", "not PIC", "no SOI",
                                     "unknown image type"})
        if (reason == other_format) return "";
    if (reason == "outofmem") return "not enough memory";
    return reason;
}

std::string with_article(ImageFormat format) {
    const std::string name = image_format_name(format);
    return (format == ImageFormat::Hdr ? "an " : "a ") + name;
}

std::string first_bytes(const uint8_t* bytes, size_t size) {
    std::string hex;
    for (size_t i = 0; i < std::min<size_t>(size, 8); ++i) {
        char two[4];
        std::snprintf(two, sizeof two, "%02x", bytes[i]);
        hex += (hex.empty() ? "" : " ") + std::string(two);
    }
    return hex;
}

const char* kFormats = "Supported formats: PNG, JPEG, BMP, TGA, GIF, PSD, HDR, PIC, PNM.";
const char* kCutShort = "Get or save the file again: an interrupted download or copy leaves it incomplete.";
const char* kCorrupt = "The file is corrupt; save it again, or choose another.";

}  // namespace

Result<Image> load_image(const fs::path& path, uint64_t max_pixels) {
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (ec || !fs::exists(status))
        return make_error(
            ErrorKind::Io, "image " + quoted(path) + " does not exist",
            "Check the path (relative paths are looked up in the assets folder and next to the kernel file).");
    if (fs::is_directory(status))
        return make_error(ErrorKind::Io, "image " + quoted(path) + " is a folder, not an image file");
    const auto size = fs::file_size(path, ec);
    if (ec) return make_error(ErrorKind::Io, "cannot read image " + quoted(path) + ": " + ec.message());
    if (size == 0)
        return make_error(ErrorKind::Io, "image " + quoted(path) + " is empty (0 bytes)",
                          "Save the image again, or choose another file.");
    if (size > std::numeric_limits<int>::max())
        return make_error(ErrorKind::Io, "image " + quoted(path) + " is " + std::to_string(size >> 20) +
                                             " MiB; files over 2 GiB are not supported");

    std::ifstream in(path, std::ios::binary);
    std::vector<unsigned char> bytes(size);
    if (!in || !in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size)))
        return make_error(ErrorKind::Io, "cannot read image " + quoted(path),
                          "Check that you have permission to read it.");
    auto image = decode_image(bytes.data(), bytes.size(), "image " + quoted(path), max_pixels);
    if (image) return image;
    // The name says one format, the bytes another (or none): say so, it is often the whole story.
    const ImageFormat named = image_format_from_extension(path.extension().string());
    const ImageFormat actual = sniff_image_format(bytes.data(), bytes.size());
    if (named != ImageFormat::Unknown && actual != named) {
        Error e = image.error();
        e.message += " (its name ends in " + path.extension().string() + ", but it " +
                     (actual == ImageFormat::Unknown ? std::string("does not start like ") + with_article(named) + " file"
                                                     : "holds " + std::string(image_format_name(actual)) + " data") + ")";
        return e;
    }
    return image;
}

Result<Image> decode_image(const uint8_t* bytes, size_t size, const std::string& name, uint64_t max_pixels) {
    if (size == 0)
        return make_error(ErrorKind::Io, name + " is empty (0 bytes)", "Save the image again, or choose another file.");
    if (size > size_t(std::numeric_limits<int>::max()))
        return make_error(ErrorKind::Io,
                          name + " is " + std::to_string(size >> 20) + " MiB; files over 2 GiB are not supported");
    const ImageFormat format = sniff_image_format(bytes, size);
    const std::string a_format = with_article(format) + " file";
    auto damaged = [&](const StructureProblem& problem) {
        if (problem.kind == StructureProblem::Kind::Truncated)
            return make_error(ErrorKind::Io, name + " is " + a_format + " that was cut short: " + problem.detail,
                              kCutShort);
        if (problem.kind == StructureProblem::Kind::Unsupported)
            return make_error(ErrorKind::Io,
                              name + " is " + a_format + " of a kind the playground cannot read: " + problem.detail,
                              "Save it as PNG.");
        return make_error(ErrorKind::Io, name + " is " + a_format + " that is corrupt: " + problem.detail, kCorrupt);
    };
    // The file is fine; the image chosen is larger than a run takes: a choice to change, not a file to mend.
    auto too_large = [&](uint64_t w, uint64_t h) {
        return make_error(ErrorKind::UserInput,
                          name + " is " + std::to_string(w) + "x" + std::to_string(h) + " (" + megapixels(w * h) +
                              " Mpixel); the limit is " + megapixels(max_pixels) + " Mpixel",
                          "Scale the image down, or choose a smaller one.");
    };
    auto with_reason = [](const std::string& reason) { return reason.empty() ? std::string() : " (" + reason + ")"; };

    // A malformed structure stb_image would mishandle is refused before it reads a byte; a cut-short file
    // after the size check (a huge image is refused for its size, whatever else is wrong with it).
    const std::optional<StructureProblem> problem = check_structure(format, bytes, size);
    if (problem && problem->kind != StructureProblem::Kind::Truncated) return damaged(*problem);
    int width = 0, height = 0, channels = 0;
    if (!stbi_info_from_memory(bytes, static_cast<int>(size), &width, &height, &channels)) {
        const std::string reason = stb_reason();
        uint64_t png_w = 0, png_h = 0;
        if (png_dimensions(bytes, size, png_w, png_h) && png_w * png_h > max_pixels) return too_large(png_w, png_h);
        if (format == ImageFormat::Unknown) {
            return make_error(ErrorKind::Io,
                              name + " is not in an image format the playground can read: its first bytes (" +
                                  first_bytes(bytes, size) + ") match none of them",
                              kFormats);
        }
        if (problem) return damaged(*problem);
        return make_error(ErrorKind::Io,
                          name + " is " + a_format + " whose header cannot be read" + with_reason(reason), kCorrupt);
    }
    if (format == ImageFormat::Bmp && height < 0 && height > std::numeric_limits<int>::min()) height = -height;  // top-down rows
    if (width > 0 && height > 0 && uint64_t(width) * uint64_t(height) > max_pixels) return too_large(uint64_t(width), uint64_t(height));
    if (problem) return damaged(*problem);
    if (width <= 0 || height <= 0)
        return make_error(ErrorKind::Io,
                          name + " has no pixels (" + std::to_string(width) + "x" + std::to_string(height) + ")",
                          kCorrupt);
    int w = 0, h = 0, c = 0;
    std::unique_ptr<stbi_uc, void (*)(void*)> decoded(stbi_load_from_memory(bytes, static_cast<int>(size), &w, &h, &c, 4),
                                                      stbi_image_free);
    if (!decoded) {
        return make_error(ErrorKind::Io,
                          name + " is " + (format == ImageFormat::Unknown ? std::string("an image file") : a_format) +
                              " that could not be decoded" + with_reason(stb_reason()),
                          kCorrupt);
    }
    // The size was checked from the header; an image that decodes to another size would bypass that check.
    if (w != width || h != height) {
        return make_error(ErrorKind::Io,
                          name + " decoded as " + std::to_string(w) + "x" + std::to_string(h) +
                              " but its header says " + std::to_string(width) + "x" + std::to_string(height),
                          kCorrupt);
    }
    Image image;
    image.width = w;
    image.height = h;
    image.channels = 4;
    image.pixels.assign(decoded.get(), decoded.get() + size_t(w) * size_t(h) * 4);
    return image;
}

// An Image that is not one (no pixels, no channels, the wrong number of bytes) is the caller's bug: Internal. The
// file system's refusals are Io.
Result<bool> save_png(const fs::path& path, const Image& image) {
    if (image.width <= 0 || image.height <= 0)
        return make_error(ErrorKind::Internal, "cannot save an empty image (" + std::to_string(image.width) + "x" +
                                             std::to_string(image.height) + ") to " + quoted(path));
    if (image.channels < 1 || image.channels > 4)
        return make_error(ErrorKind::Internal, "cannot save " + quoted(path) + ": an image has 1 to 4 channels, not " +
                                             std::to_string(image.channels));
    const size_t expected = size_t(image.width) * size_t(image.height) * size_t(image.channels);
    if (image.pixels.size() != expected) {
        return make_error(ErrorKind::Internal, "cannot save " + quoted(path) + ": the image is " +
                                             std::to_string(image.width) + "x" + std::to_string(image.height) + "x" +
                                             std::to_string(image.channels) + " = " + std::to_string(expected) +
                                             " bytes but holds " + std::to_string(image.pixels.size()));
    }
    std::error_code ec;
    const fs::path parent = path.parent_path();
    if (!parent.empty() && !fs::is_directory(parent, ec))
        return make_error(ErrorKind::Io,
                          "cannot save " + quoted(path) + ": the folder " + quoted(parent) + " does not exist",
                          "Create it first.");
    if (!stbi_write_png(path.c_str(), image.width, image.height, image.channels, image.pixels.data(),
                        image.width * image.channels)) {
        return make_error(ErrorKind::Io, "could not write " + quoted(path),
                          "Check that the folder is writable and the disk is not full.");
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
