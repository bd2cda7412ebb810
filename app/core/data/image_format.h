// Telling an image file's format from its first bytes, and finding where a truncated file was cut short (or
// what is malformed), so load errors name the real format and the real problem: stb_image's own reason is
// often another format's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace cp {

enum class ImageFormat { Unknown, Png, Jpeg, Gif, Bmp, Psd, Pic, Pnm, Hdr, Tga };

// The format whose signature the bytes start with (a file shorter than the signature counts when what there
// is matches it). TGA has no signature: it is recognised, as stb_image does, by plausible header fields.
ImageFormat sniff_image_format(const uint8_t* bytes, size_t size);

// "PNG", "JPEG", ...; "unknown" for Unknown.
const char* image_format_name(ImageFormat format);

// The format a file name's extension suggests (".jpg" -> Jpeg), or Unknown.
ImageFormat image_format_from_extension(const std::string& extension);

// What is wrong with a file's structure, found by walking it (chunk and segment lengths, pixel counts in the
// header) without decoding a pixel.
struct StructureProblem {
    enum class Kind { Truncated, Corrupt, Unsupported } kind = Kind::Corrupt;
    std::string detail;  // "it ends after 300 bytes, inside its `IDAT` chunk"
};

// A file cut short, a malformed structure, or a variant the decoder would mishandle. Nothing when the walk finds no
// problem, when the structure is too broken to tell (the decoder reports that), or for formats not walked
// (HDR, PIC).
std::optional<StructureProblem> check_structure(ImageFormat format, const uint8_t* bytes, size_t size);

}  // namespace cp
