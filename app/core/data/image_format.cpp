// Image formats by signature, and problems found from each container's structure before stb_image decodes it.
// stb_image reads past the end of a cut-short BMP, TGA or PNM as zeros (or leaves the pixels unwritten) and
// loads it without a word, and reports a cut-short JPEG with the last reason any format gave ("bad png sig");
// these walks say what actually happened. They also refuse the malformed structures that stb_image 2.27
// (Debian 12) mishandles, found by tests/fuzz. Every read is bounds-checked: the bytes are untrusted.
// Sections: signatures - PNG - JPEG - GIF - BMP - TGA - PNM - PSD - dispatch.
#include "core/data/image_format.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace cp {

namespace {

// ---- signatures ----

// True when the bytes start with `sig`, or are a non-empty prefix of it (a file cut inside its signature).
bool starts_with(const uint8_t* b, size_t size, const char* sig, size_t sig_len) {
    const size_t n = std::min(size, sig_len);
    return n > 0 && std::memcmp(b, sig, n) == 0;
}

uint32_t be16(const uint8_t* b, size_t at) {
    return uint32_t(b[at]) << 8 | b[at + 1];
}
uint32_t be32(const uint8_t* b, size_t at) {
    return be16(b, at) << 16 | be16(b, at + 2);
}
uint32_t le16(const uint8_t* b, size_t at) {
    return uint32_t(b[at + 1]) << 8 | b[at];
}
uint32_t le32(const uint8_t* b, size_t at) {
    return le16(b, at + 2) << 16 | le16(b, at);
}

// Where a JPEG's first segment begins: after its start-of-image marker, FF D8, which stb_image accepts after
// any number of FF fill bytes. size + 1 when the file ends inside those; 0 when it does not start like one.
size_t jpeg_start(const uint8_t* b, size_t size) {
    size_t pos = 0;
    while (pos < size && b[pos] == 0xFF) ++pos;
    if (pos == 0) return 0;
    if (pos == size) return size + 1;
    return b[pos] == 0xD8 ? pos + 1 : 0;
}

// stb_image's TGA test: a colour-map type of 0 or 1, a known image type, and plausible sizes and depths.
bool looks_like_tga(const uint8_t* b, size_t size) {
    if (size < 18) return false;
    const uint8_t cmap_type = b[1], type = b[2], cmap_bits = b[7], bpp = b[16];
    if (cmap_type > 1) return false;
    const bool mapped = type == 1 || type == 9;
    if (cmap_type == 1) {
        if (!mapped) return false;
        if (cmap_bits != 8 && cmap_bits != 15 && cmap_bits != 16 && cmap_bits != 24 && cmap_bits != 32) return false;
    } else if (type != 2 && type != 3 && type != 10 && type != 11) {
        return false;
    }
    if (le16(b, 12) < 1 || le16(b, 14) < 1) return false;
    if (mapped) return bpp == 8 || bpp == 16;
    return bpp == 8 || bpp == 15 || bpp == 16 || bpp == 24 || bpp == 32;
}

std::string bytes_text(size_t n) {
    return std::to_string(n) + (n == 1 ? " byte" : " bytes");
}

std::string ends_after(size_t size) {
    return "it ends after " + bytes_text(size);
}

StructureProblem cut(std::string detail) {
    return {StructureProblem::Kind::Truncated, std::move(detail)};
}
StructureProblem corrupt(std::string detail) {
    return {StructureProblem::Kind::Corrupt, std::move(detail)};
}
StructureProblem unsupported(std::string detail) {
    return {StructureProblem::Kind::Unsupported, std::move(detail)};
}

// ---- PNG: 8-byte signature, then chunks (length, type, data, CRC) up to IEND ----

std::optional<StructureProblem> png_problem(const uint8_t* b, size_t size) {
    if (size < 8) return cut(ends_after(size) + ", inside the PNG signature");
    size_t pos = 8;
    while (pos + 8 <= size) {
        const uint64_t length = be32(b, pos);
        if (length > 0x7FFFFFFFu) return std::nullopt;  // corrupt, not cut short: the decoder says so
        std::string type(reinterpret_cast<const char*>(b + pos + 4), 4);
        if (!std::all_of(type.begin(), type.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); }))
            return std::nullopt;
        const uint64_t end = pos + 12 + length;
        if (end > size)
            return cut(ends_after(size) + ", inside its `" + type + "` chunk (which needs " + bytes_text(end - pos) +
                       ")");
        if (type == "IEND") return std::nullopt;
        pos = static_cast<size_t>(end);
    }
    return cut(ends_after(size) + " without the `IEND` chunk that closes every PNG file");
}

// ---- JPEG: SOI, then marker segments; after each SOS, entropy-coded data up to the next marker; EOI ----

// The tables a JPEG defines and its frame's components, as far as the walk has read. stb_image 2.27 (Debian 12)
// neither checks that a Huffman table's code counts add up to at most 256 (it writes the symbols past the end
// of its table) nor that a scan's tables were ever defined (it decodes with uninitialised memory, and an
// assert in the Debian build can then stop the app): both are refused here.
struct JpegTables {
    const uint8_t* b;
    size_t size;
    bool huffman[2][4] = {};  // [DC, AC][id]
    bool quant[4] = {};
    int components = 0, component_id[4] = {}, component_quant[4] = {};
    bool frame = false, progressive = false;

    uint32_t at(uint64_t i) const { return i < size ? b[i] : 0; }  // the decoder reads zeros past the end

    // DHT: per table a class/id byte, 16 code counts, then that many symbols, up to the segment's length.
    std::optional<StructureProblem> define_huffman(uint64_t pos, uint32_t length) {
        for (int64_t left = int64_t(length) - 2; left > 0;) {
            const uint32_t id = at(pos);
            if ((id >> 4) > 1 || (id & 15) > 3) return std::nullopt;  // the decoder refuses this table itself
            uint64_t codes = 0;
            for (uint64_t i = 1; i <= 16; ++i) codes += at(pos + i);
            if (codes > 256) {
                return corrupt("its Huffman table " + std::string(id >> 4 ? "AC " : "DC ") + std::to_string(id & 15) +
                               " lists " + std::to_string(codes) + " codes, more than the 256 a JPEG table can hold");
            }
            huffman[id >> 4][id & 15] = true;
            pos += 17 + codes;
            left -= int64_t(17 + codes);
        }
        return std::nullopt;
    }

    // DQT: per table a precision/id byte, then 64 values of 1 or 2 bytes.
    void define_quant(uint64_t pos, uint32_t length) {
        for (int64_t left = int64_t(length) - 2; left > 0;) {
            const uint32_t id = at(pos);
            if ((id >> 4) > 1 || (id & 15) > 3) return;
            quant[id & 15] = true;
            const uint32_t bytes = 1 + ((id >> 4) ? 128 : 64);
            pos += bytes;
            left -= bytes;
        }
    }

    // SOF0/1/2 (only the first counts): precision, height, width, then per component an id, sampling, table.
    void define_frame(uint64_t pos, uint8_t marker) {
        if (frame) return;
        frame = true;
        progressive = marker == 0xC2;
        components = int(std::min<uint32_t>(at(pos + 5), 4));
        for (int i = 0; i < components; ++i) {
            component_id[i] = int(at(pos + 6 + 3 * i));
            component_quant[i] = int(at(pos + 8 + 3 * i) & 3);
        }
    }

    // SOS: per component an id and its DC/AC table ids, then the spectral selection and approximation.
    std::optional<StructureProblem> check_scan(uint64_t pos) const {
        if (!frame) return std::nullopt;  // the decoder refuses a scan before the frame
        const uint32_t count = std::min<uint32_t>(at(pos), 4);
        const uint32_t spectral_start = at(pos + 1 + 2 * count), approximation_high = at(pos + 3 + 2 * count) >> 4;
        for (uint32_t i = 0; i < count; ++i) {
            const int id = int(at(pos + 1 + 2 * i));
            const uint32_t tables = at(pos + 2 + 2 * i), dc = tables >> 4, ac = tables & 15;
            if (dc > 3 || ac > 3) return std::nullopt;  // the decoder refuses these
            const int* found = std::find(component_id, component_id + components, id);
            if (found == component_id + components) return std::nullopt;
            const bool needs_dc = !progressive || (spectral_start == 0 && approximation_high == 0);
            const bool needs_ac = !progressive || spectral_start > 0;
            if ((needs_dc && !huffman[0][dc]) || (needs_ac && !huffman[1][ac])) {
                const bool missing_dc = needs_dc && !huffman[0][dc];
                return corrupt("its image data uses Huffman table " + std::string(missing_dc ? "DC " : "AC ") +
                               std::to_string(missing_dc ? dc : ac) + ", which the file never defines");
            }
            if (!quant[component_quant[found - component_id]]) {
                return corrupt("its image data uses quantization table " +
                               std::to_string(component_quant[found - component_id]) +
                               ", which the file never defines");
            }
        }
        return std::nullopt;
    }
};

std::optional<StructureProblem> jpeg_problem(const uint8_t* b, size_t size) {
    size_t pos = jpeg_start(b, size);
    if (pos == 0 || pos > size) return cut(ends_after(size) + ", inside the start-of-image marker");
    bool seen_scan = false;
    JpegTables tables{b, size};
    for (;;) {
        // stb_image skips padding between segments; skipping it everywhere makes this walk see every segment it does.
        while (pos < size && b[pos] != 0xFF) ++pos;
        while (pos < size && b[pos] == 0xFF) ++pos;  // fill bytes
        if (pos >= size) break;
        const uint8_t marker = b[pos++];
        if (marker == 0xD9) return std::nullopt;                                               // EOI: complete
        if (marker == 0x00 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD8)) continue;  // no length
        if (pos + 2 > size) return cut(ends_after(size) + ", inside a header segment");
        const uint32_t length = be16(b, pos);
        // Tables first: a cut-short file still reaches the decoder's header reader.
        if (marker == 0xC4)
            if (auto problem = tables.define_huffman(pos + 2, length)) return problem;
        if (marker == 0xDB) tables.define_quant(pos + 2, length);
        if (marker >= 0xC0 && marker <= 0xC2) tables.define_frame(pos + 2, marker);
        const size_t end = pos + length;
        if (end > size)
            return cut(ends_after(size) + ", inside a header segment (which needs " + bytes_text(length + 2) + ")");
        if (length < 2) return std::nullopt;  // the decoder refuses it
        if (marker == 0xDA)
            if (auto problem = tables.check_scan(pos + 2)) return problem;
        pos = end;
        if (marker != 0xDA) continue;
        // Entropy-coded data: runs until an 0xFF that is not a stuffed 0x00 or a restart marker.
        seen_scan = true;
        while (pos + 1 < size && !(b[pos] == 0xFF && b[pos + 1] != 0x00 && !(b[pos + 1] >= 0xD0 && b[pos + 1] <= 0xD7)))
            ++pos;
        if (pos + 1 >= size) break;
    }
    if (!seen_scan) return cut(ends_after(size) + ", before its image data begins");
    return cut(ends_after(size) + ", inside its image data (there is no end-of-image marker)");
}

// ---- GIF: header, colour table, then extension and image blocks; only the first image is shown ----

// Skips data sub-blocks (a length byte, that many bytes) up to the zero-length terminator.
bool skip_sub_blocks(const uint8_t* b, size_t size, size_t& pos) {
    for (;;) {
        if (pos >= size) return false;
        const size_t n = b[pos++];
        if (n == 0) return true;
        pos += n;
    }
}

std::optional<StructureProblem> gif_problem(const uint8_t* b, size_t size) {
    if (size < 13) return cut(ends_after(size) + ", inside the GIF header");
    size_t pos = 13;
    if (b[10] & 0x80) pos += 3u << ((b[10] & 7) + 1);  // global colour table
    if (pos > size) return cut(ends_after(size) + ", inside its colour table");
    for (;;) {
        if (pos >= size) return cut(ends_after(size) + ", before its first image");
        const uint8_t block = b[pos++];
        if (block == 0x3B) return std::nullopt;  // trailer before any image: the decoder says there is none
        if (block == 0x21) {
            if (++pos > size || !skip_sub_blocks(b, size, pos))
                return cut(ends_after(size) + ", inside an extension block");
            continue;
        }
        if (block != 0x2C) return std::nullopt;  // corrupt
        if (pos + 9 > size) return cut(ends_after(size) + ", inside its first image's descriptor");
        const uint8_t flags = b[pos + 8];
        pos += 9;
        if (flags & 0x80) pos += 3u << ((flags & 7) + 1);                                    // local colour table
        if (++pos > size) return cut(ends_after(size) + ", before its first image's data");  // + LZW code size
        if (!skip_sub_blocks(b, size, pos)) return cut(ends_after(size) + ", inside its first image's data");
        return std::nullopt;
    }
}

// ---- BMP: file header, info header, then rows padded to 4 bytes (uncompressed) ----

std::optional<StructureProblem> bmp_problem(const uint8_t* b, size_t size) {
    if (size < 18) return cut(ends_after(size) + ", inside the BMP header");
    const uint32_t header = le32(b, 14);
    if (header != 12 && header < 40) return std::nullopt;
    if (size < 14 + std::min<size_t>(header, 40)) return cut(ends_after(size) + ", inside the BMP header");
    int64_t width = 0, height = 0;
    uint32_t bpp = 0, compression = 0;
    if (header == 12) {
        width = le16(b, 18);
        height = le16(b, 20);
        bpp = le16(b, 24);
    } else {
        width = int32_t(le32(b, 18));
        height = int32_t(le32(b, 22));
        bpp = le16(b, 28);
        compression = le32(b, 30);
    }
    const uint64_t offset = le32(b, 10);
    if (compression != 0 && compression != 3 && compression != 6) return std::nullopt;  // run-length: not counted here
    if (width <= 0 || height == 0 || width > (1 << 24) || height > (1 << 24) || height < -(1 << 24) ||
        offset < 14 + uint64_t(header))
        return std::nullopt;  // the decoder refuses these
    if (bpp != 1 && bpp != 4 && bpp != 8 && bpp != 16 && bpp != 24 && bpp != 32) return std::nullopt;
    const uint64_t rows = uint64_t(height < 0 ? -height : height);
    const uint64_t row_bytes = (uint64_t(width) * bpp + 31) / 32 * 4;
    const uint64_t end =
        offset + row_bytes * (rows - 1) + (uint64_t(width) * bpp + 7) / 8;  // last row's padding optional
    if (end <= size) return std::nullopt;
    return cut("it holds " + bytes_text(size) + ", but its " + std::to_string(width) + "x" + std::to_string(rows) +
               " pixels end at byte " + std::to_string(end));
}

// ---- TGA: header, id, colour map, then pixels (raw or run-length packets) ----

std::optional<StructureProblem> tga_problem(const uint8_t* b, size_t size) {
    if (size < 18) return std::nullopt;  // not recognised as TGA at all
    const uint64_t pixel_bytes = (b[16] + 7u) / 8u;
    const uint64_t pixels = uint64_t(le16(b, 12)) * le16(b, 14);
    uint64_t pos = 18 + uint64_t(b[0]);
    if (b[1] == 1) pos += uint64_t(le16(b, 5)) * ((b[7] + 7u) / 8u);
    const std::string what = std::to_string(le16(b, 12)) + "x" + std::to_string(le16(b, 14)) + " pixels";
    if (b[2] < 8) {
        const uint64_t end = pos + pixels * pixel_bytes;
        if (end <= size) return std::nullopt;
        return cut("it holds " + bytes_text(size) + ", but its " + what + " end at byte " + std::to_string(end));
    }
    uint64_t done = 0;
    while (done < pixels) {
        if (pos >= size) break;
        const uint8_t packet = b[pos++];
        const uint64_t count = (packet & 0x7Fu) + 1;
        pos += packet & 0x80 ? pixel_bytes : count * pixel_bytes;
        if (pos > size) break;
        done += count;
    }
    if (done >= pixels) return std::nullopt;
    return cut(ends_after(size) + ", after " + std::to_string(done) + " of its " + what + " (run-length encoded)");
}

// ---- PNM (P5 gray, P6 RGB): text header, then raw samples ----

// Reads the next header number as stb_image does: whitespace and `#` comments skipped, then digits (none: false).
bool pnm_number(const uint8_t* b, size_t size, size_t& pos, uint64_t& out) {
    for (;;) {
        while (pos < size && std::isspace(b[pos])) ++pos;
        if (pos < size && b[pos] == '#') {
            while (pos < size && b[pos] != '\n' && b[pos] != '\r') ++pos;
            continue;
        }
        break;
    }
    out = 0;
    const size_t start = pos;
    for (; pos < size && std::isdigit(b[pos]); ++pos)
        out = std::min<uint64_t>(out * 10 + uint64_t(b[pos] - '0'), 1ull << 40);
    return pos > start;
}

std::optional<StructureProblem> pnm_problem(const uint8_t* b, size_t size) {
    size_t pos = 2;
    uint64_t numbers[3] = {0, 0, 0};  // width, height, largest sample value
    bool complete = true;
    for (uint64_t& n : numbers) complete = pnm_number(b, size, pos, n) && complete;
    // stb_image 2.27 (Debian 12) reads these into an int without checking for overflow.
    for (uint64_t n : numbers)
        if (n > 0x7FFFFFFFu)
            return corrupt("its header holds the number " +
                           (n >= (1ull << 40) ? std::string("1099511627776 or more") : std::to_string(n)) +
                           ", too large for any image");
    if (!complete)
        return pos >= size ? std::optional<StructureProblem>(cut(ends_after(size) + ", inside the PNM header"))
                           : std::nullopt;
    const uint64_t width = numbers[0], height = numbers[1], max_value = numbers[2];
    // stb_image 2.27 neither scales samples to their maximum nor reads 16-bit ones in the file's byte order (and
    // converting 16-bit RGB reads past its buffer): only the common 8-bit files come out right.
    if (max_value != 255) {
        return unsupported("its samples go up to " + std::to_string(max_value) +
                           "; only PNM files whose samples go up to 255 (8 bits) are read correctly");
    }
    if (width > (1u << 24) || height > (1u << 24)) return std::nullopt;  // the decoder refuses these
    ++pos;  // the single whitespace character before the samples
    const uint64_t channels = b[1] == '6' ? 3 : 1;
    const uint64_t end = pos + width * height * channels * (max_value > 255 ? 2 : 1);
    if (end <= size) return std::nullopt;
    return cut("it holds " + bytes_text(size) + ", but its " + std::to_string(width) + "x" + std::to_string(height) +
               " pixels end at byte " + std::to_string(end));
}

// ---- PSD: header, three length-prefixed sections, then the merged image (raw when compression is 0) ----

std::optional<StructureProblem> psd_problem(const uint8_t* b, size_t size) {
    if (size < 26) return cut(ends_after(size) + ", inside the PSD header");
    const uint64_t channels = be16(b, 12), height = be32(b, 14), width = be32(b, 18), depth = be16(b, 22);
    uint64_t pos = 26;
    for (int section = 0; section < 3; ++section) {
        if (pos + 4 > size) return cut(ends_after(size) + ", before its image data");
        pos += 4 + uint64_t(be32(b, size_t(pos)));
    }
    if (pos + 2 > size) return cut(ends_after(size) + ", before its image data");
    if (be16(b, size_t(pos)) != 0 || (depth != 8 && depth != 16) || width > (1u << 24) || height > (1u << 24))
        return std::nullopt;  // compressed, or odd: the decoder checks it
    const uint64_t end = pos + 2 + std::min<uint64_t>(channels, 4) * width * height * (depth / 8);
    if (end <= size) return std::nullopt;
    return cut("it holds " + bytes_text(size) + ", but its " + std::to_string(width) + "x" + std::to_string(height) +
               " pixels end at byte " + std::to_string(end));
}

}  // namespace

// ---- dispatch ----

ImageFormat sniff_image_format(const uint8_t* b, size_t size) {
    if (starts_with(b, size, "\x89PNG\r\n\x1a\n", 8)) return ImageFormat::Png;
    if (jpeg_start(b, size) > 0) return ImageFormat::Jpeg;
    if (starts_with(b, size, "GIF87a", 6) || starts_with(b, size, "GIF89a", 6)) return ImageFormat::Gif;
    if (starts_with(b, size, "BM", 2)) return ImageFormat::Bmp;
    if (starts_with(b, size, "8BPS", 4)) return ImageFormat::Psd;
    if (starts_with(b, size, "\x53\x80\xF6\x34", 4)) return ImageFormat::Pic;
    if (size >= 2 && b[0] == 'P' && (b[1] == '5' || b[1] == '6')) return ImageFormat::Pnm;
    if (starts_with(b, size, "#?RADIANCE\n", 11) || starts_with(b, size, "#?RGBE\n", 7)) return ImageFormat::Hdr;
    if (looks_like_tga(b, size)) return ImageFormat::Tga;
    return ImageFormat::Unknown;
}

const char* image_format_name(ImageFormat format) {
    switch (format) {
        case ImageFormat::Png:
            return "PNG";
        case ImageFormat::Jpeg:
            return "JPEG";
        case ImageFormat::Gif:
            return "GIF";
        case ImageFormat::Bmp:
            return "BMP";
        case ImageFormat::Psd:
            return "PSD";
        case ImageFormat::Pic:
            return "PIC";
        case ImageFormat::Pnm:
            return "PNM";
        case ImageFormat::Hdr:
            return "HDR";
        case ImageFormat::Tga:
            return "TGA";
        case ImageFormat::Unknown:
            break;
    }
    return "unknown";
}

ImageFormat image_format_from_extension(const std::string& extension) {
    std::string e;
    for (char c : extension) e += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (e == ".png") return ImageFormat::Png;
    if (e == ".jpg" || e == ".jpeg" || e == ".jpe" || e == ".jfif") return ImageFormat::Jpeg;
    if (e == ".gif") return ImageFormat::Gif;
    if (e == ".bmp" || e == ".dib") return ImageFormat::Bmp;
    if (e == ".psd") return ImageFormat::Psd;
    if (e == ".pic") return ImageFormat::Pic;
    if (e == ".pnm" || e == ".pgm" || e == ".ppm") return ImageFormat::Pnm;
    if (e == ".hdr") return ImageFormat::Hdr;
    if (e == ".tga") return ImageFormat::Tga;
    return ImageFormat::Unknown;
}

std::optional<StructureProblem> check_structure(ImageFormat format, const uint8_t* bytes, size_t size) {
    switch (format) {
        case ImageFormat::Png:
            return png_problem(bytes, size);
        case ImageFormat::Jpeg:
            return jpeg_problem(bytes, size);
        case ImageFormat::Gif:
            return gif_problem(bytes, size);
        case ImageFormat::Bmp:
            return bmp_problem(bytes, size);
        case ImageFormat::Tga:
            return tga_problem(bytes, size);
        case ImageFormat::Pnm:
            return pnm_problem(bytes, size);
        case ImageFormat::Psd:
            return psd_problem(bytes, size);
        case ImageFormat::Pic:
        case ImageFormat::Hdr:
        case ImageFormat::Unknown:
            break;
    }
    return std::nullopt;
}

}  // namespace cp
