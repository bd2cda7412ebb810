// Image files that are cut short or malformed: each format is named and the problem is said (never another
// format's reason such as "bad png sig"); the decoder bugs the fuzzer found stay refused; the seed files
// decode to the pixels they were written with.
#include "core/data/image_format.h"
#include "core/data/image_io.h"

#include <gtest/gtest.h>
#include <stb_image_write.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include "test_paths.h"

namespace cp {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;

const fs::path kSeeds = fs::path(CP_SOURCE_DIR) / "tests" / "fuzz" / "corpus" / "image";

Bytes read_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The seeds' pixel formula (tests/fuzz/make_image_seeds.py): 7x5, channel c of (x, y).
uint8_t seed_pixel(int x, int y, int c) {
    return static_cast<uint8_t>((x * 37 + y * 91 + c * 53) % 256);
}

Bytes encode(const char* format, int channels = 3) {
    std::vector<uint8_t> pixels(7 * 5 * channels);
    for (int y = 0; y < 5; ++y)
        for (int x = 0; x < 7; ++x)
            for (int c = 0; c < channels; ++c) pixels[(y * 7 + x) * channels + c] = seed_pixel(x, y, c);
    Bytes out;
    auto append = [](void* context, void* data, int size) {
        auto* bytes = static_cast<Bytes*>(context);
        bytes->insert(bytes->end(), static_cast<uint8_t*>(data), static_cast<uint8_t*>(data) + size);
    };
    const std::string f = format;
    if (f == "png") stbi_write_png_to_func(append, &out, 7, 5, channels, pixels.data(), 7 * channels);
    if (f == "jpeg") stbi_write_jpg_to_func(append, &out, 7, 5, channels, pixels.data(), 90);
    if (f == "bmp") stbi_write_bmp_to_func(append, &out, 7, 5, channels, pixels.data());
    if (f == "tga") stbi_write_tga_to_func(append, &out, 7, 5, channels, pixels.data());
    return out;
}

Result<Image> decode(const Bytes& bytes) {
    return decode_image(bytes.data(), bytes.size(), "image `x`");
}

std::string message_of(const Bytes& bytes) {
    auto r = decode(bytes);
    return r ? std::string("(decoded)") : r.error().message;
}

TEST(ImageFormat, SniffedFromTheFirstBytesNotTheName) {
    EXPECT_EQ(sniff_image_format(encode("png").data(), 100), ImageFormat::Png);
    EXPECT_EQ(sniff_image_format(encode("jpeg").data(), 100), ImageFormat::Jpeg);
    EXPECT_EQ(sniff_image_format(encode("bmp").data(), 100), ImageFormat::Bmp);
    EXPECT_EQ(sniff_image_format(encode("tga").data(), 100), ImageFormat::Tga);
    const Bytes cut_signature = {0x89, 'P', 'N'};
    EXPECT_EQ(sniff_image_format(cut_signature.data(), cut_signature.size()), ImageFormat::Png);
    const Bytes text = {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l',
                        'd', ' ', 'o', 'f', ' ', 't', 'e', 'x', 't', '!'};
    EXPECT_EQ(sniff_image_format(text.data(), text.size()), ImageFormat::Unknown);
    EXPECT_EQ(image_format_from_extension(".JPG"), ImageFormat::Jpeg);
}

// Each format cut at several places: named, said to be cut short, and never described by another format.
TEST(ImageFormat, CutShortFilesNameTheirFormat) {
    struct Case {
        std::string name;
        Bytes whole;
    };
    std::vector<Case> cases = {{"PNG", encode("png")},
                               {"JPEG", encode("jpeg")},
                               {"BMP", encode("bmp")},
                               {"TGA", encode("tga")},
                               {"TGA", encode("tga", 1)}};
    for (const char* seed :
         {"gif_plain.gif", "pnm_gray.pgm", "psd_rgb_raw.psd", "tga_rgb24_raw.tga", "bmp_palette8_top_down.bmp"}) {
        const std::string s = seed;
        const std::string format = s.substr(0, 3) == "gif"   ? "GIF"
                                   : s.substr(0, 3) == "pnm" ? "PNM"
                                   : s.substr(0, 3) == "psd" ? "PSD"
                                   : s.substr(0, 3) == "tga" ? "TGA"
                                                             : "BMP";
        cases.push_back({format, read_bytes(kSeeds / seed)});
    }
    for (const auto& c : cases) {
        ASSERT_GT(c.whole.size(), 20u) << c.name;
        ASSERT_TRUE(decode(c.whole)) << c.name << ": " << message_of(c.whole);
        // Not the last bytes: a BMP's last row padding and a GIF's trailer after its first image are optional.
        for (size_t keep :
             {size_t(c.name == "TGA" ? 18 : 3), c.whole.size() / 3, c.whole.size() / 2, c.whole.size() * 9 / 10}) {
            const Bytes cut(c.whole.begin(), c.whole.begin() + static_cast<long>(keep));
            const std::string m = message_of(cut);
            EXPECT_EQ(m.rfind("image `x` is a" + std::string(c.name == "HDR" ? "n " : " ") + c.name +
                                  " file that was cut short: it ",
                              0),
                      0u)
                << c.name << " cut to " << keep << " bytes: " << m;
            EXPECT_NE(m.find(std::to_string(keep)), std::string::npos) << m;  // says where it ends
            EXPECT_EQ(m.find("png sig"), std::string::npos) << m;
        }
    }
}

TEST(ImageFormat, TruncatedJpegSaysWhereNotBadPngSig) {
    // The case: a JPEG cut in its header was reported as "bad png sig".
    const Bytes jpeg = encode("jpeg");
    const Bytes header(jpeg.begin(), jpeg.begin() + 300);
    EXPECT_EQ(message_of(header),
              "image `x` is a JPEG file that was cut short: it ends after 300 bytes, inside a "
              "header segment (which needs 420 bytes)");
    const Bytes data(jpeg.begin(), jpeg.end() - 20);
    EXPECT_EQ(message_of(data), "image `x` is a JPEG file that was cut short: it ends after " +
                                    std::to_string(data.size()) +
                                    " bytes, inside its image data (there is no end-of-image marker)");
}

TEST(ImageFormat, UnknownFormatShowsItsFirstBytes) {
    const Bytes junk = {'G', 'I', 'F', '0', 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17};
    EXPECT_EQ(message_of(junk),
              "image `x` is not in an image format the playground can read: its first bytes "
              "(47 49 46 30 00 01 02 03) match none of them");
}

// The inputs the fuzzer found (tests/fuzz/corpus/image/regress_*): stb_image 2.27 writes past a Huffman
// table, decodes with tables that were never defined (an assert can stop the app), reads a header number
// into an int that overflows, and mis-reads 16-bit PNM files (reading past its buffer).
TEST(ImageFormat, DecoderBugsFoundByFuzzingAreRefusedOrFixed) {
    const std::vector<std::pair<std::string, std::string>> refused = {
        {"regress_jpeg_huffman_table_over_256_codes.jpg",
         "is a JPEG file that is corrupt: its Huffman table DC 0 lists 1597 codes"},
        {"regress_jpeg_fill_bytes_before_start_marker.jpg",
         "is a JPEG file that is corrupt: its Huffman table AC 0 lists 1869 codes"},
        {"regress_jpeg_scan_uses_undefined_huffman_table.jpg",
         "is a JPEG file that is corrupt: its image data uses Huffman table AC 0, which the file never defines"},
        {"regress_pnm_header_number_overflow.pgm",
         "is a PNM file that is corrupt: its header holds the number 1099511627776 or more"},
    };
    for (const auto& [file, expected] : refused) {
        const std::string m = message_of(read_bytes(kSeeds / file));
        EXPECT_NE(m.find(expected), std::string::npos) << file << ": " << m;
    }
    // 16-bit samples: stb_image 2.27 reads them in the wrong byte order (and reads past its buffer converting RGB).
    const std::string rgb16 = message_of(read_bytes(kSeeds / "pnm_rgb16_refused.ppm"));
    EXPECT_NE(rgb16.find("is a PNM file of a kind the playground cannot read: its samples go up to 65535"),
              std::string::npos)
        << rgb16;
}

// The lossless seeds decode to exactly the formula's pixels, whatever their channels (gray, gray+alpha, RGB,
// RGBA, 16-bit, palette): the expansion to RGBA is right.
TEST(ImageFormat, LosslessSeedsDecodeToTheirPixels) {
    struct Seed {
        const char* file;
        int channels;  // as written: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA
    };
    for (const Seed& s :
         {Seed{"png_gray8.png", 1}, Seed{"png_gray16.png", 1}, Seed{"png_rgb8.png", 3},
          Seed{"png_rgb16_sub_filter.png", 3}, Seed{"png_rgba8_paeth_filter.png", 4},
          Seed{"png_gray_alpha8_avg_filter.png", 2}, Seed{"png_rgb8_interlaced.png", 3}, Seed{"bmp_rgb24.bmp", 3},
          Seed{"tga_rgb24_raw.tga", 3}, Seed{"pnm_gray.pgm", 1}, Seed{"psd_rgb_raw.psd", 3}}) {
        auto image = decode(read_bytes(kSeeds / s.file));
        ASSERT_TRUE(image) << s.file << ": " << image.error().full();
        ASSERT_EQ(image->width, 7) << s.file;
        ASSERT_EQ(image->height, 5) << s.file;
        for (int y = 0; y < 5; ++y) {
            for (int x = 0; x < 7; ++x) {
                const uint8_t* p = &image->pixels[size_t(y * 7 + x) * 4];
                const bool gray = s.channels < 3;
                // BMP and TGA store blue first; the seeds wrote the formula in file order.
                const bool bgr = std::string(s.file).rfind("bmp", 0) == 0 || std::string(s.file).rfind("tga", 0) == 0;
                for (int c = 0; c < 3; ++c) {
                    const int source = gray ? 0 : bgr ? 2 - c : c;
                    ASSERT_EQ(p[c], seed_pixel(x, y, source)) << s.file << " at " << x << "," << y << " channel " << c;
                }
                const int alpha = s.channels == 2 ? seed_pixel(x, y, 1) : s.channels == 4 ? seed_pixel(x, y, 3) : 255;
                ASSERT_EQ(p[3], alpha) << s.file << " at " << x << "," << y;
            }
        }
    }
}

// stb_image reports a top-down BMP's height as negative; it used to be refused as having no pixels.
TEST(ImageFormat, TopDownPaletteBmpLoads) {
    auto image = decode(read_bytes(kSeeds / "bmp_palette8_top_down.bmp"));
    ASSERT_TRUE(image) << image.error().full();
    ASSERT_EQ(image->width, 7);
    ASSERT_EQ(image->height, 5);
    for (int y = 0; y < 5; ++y) {
        for (int x = 0; x < 7; ++x) {
            const int index =
                seed_pixel(x, y, 0);  // palette entry i holds B, G, R = formula(i, 0, 0), (i, 1, 1), (i, 2, 2)
            const uint8_t* p = &image->pixels[size_t(y * 7 + x) * 4];
            ASSERT_EQ(p[0], seed_pixel(index, 2, 2)) << x << "," << y;
            ASSERT_EQ(p[1], seed_pixel(index, 1, 1)) << x << "," << y;
            ASSERT_EQ(p[2], seed_pixel(index, 0, 0)) << x << "," << y;
        }
    }
}

}  // namespace
}  // namespace cp
