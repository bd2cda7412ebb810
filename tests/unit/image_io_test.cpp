// Images: a PNG written and read back is the same; broken files (missing, empty, truncated, corrupt,
// huge) are refused with a message naming the path and the problem.
#include "core/data/image_io.h"

#include <gtest/gtest.h>

#include <fstream>
#include "test_paths.h"

namespace cp {
namespace {

namespace fs = std::filesystem;

class ImageIo : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("cp_image_io_" + std::to_string(::getpid()) + "_" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    void write_bytes(const fs::path& p, const std::vector<uint8_t>& bytes) {
        std::ofstream out(p, std::ios::binary);
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
    std::vector<uint8_t> read_bytes(const fs::path& p) {
        std::ifstream in(p, std::ios::binary);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }

    // A noisy RGBA image, so its PNG is not tiny (truncation then cuts into pixel data).
    static Image noisy(int w, int h) {
        Image img;
        img.width = w;
        img.height = h;
        img.channels = 4;
        img.pixels.resize(size_t(w) * h * 4);
        uint32_t state = 12345;
        for (auto& p : img.pixels) {
            state = state * 1664525u + 1013904223u;
            p = static_cast<uint8_t>(state >> 24);
        }
        return img;
    }

    fs::path dir_;
};

TEST_F(ImageIo, PngRoundTrip) {
    const Image original = noisy(37, 23);
    const fs::path p = dir_ / "noisy.png";
    auto saved = save_png(p, original);
    ASSERT_TRUE(saved) << saved.error().full();
    auto loaded = load_image(p);
    ASSERT_TRUE(loaded) << loaded.error().full();
    EXPECT_EQ(loaded->width, 37);
    EXPECT_EQ(loaded->height, 23);
    EXPECT_EQ(loaded->channels, 4);
    EXPECT_EQ(loaded->pixels, original.pixels);
}

TEST_F(ImageIo, GrayPngLoadsAsRgba) {
    Image gray;
    gray.width = 3;
    gray.height = 1;
    gray.channels = 1;
    gray.pixels = {0, 100, 255};
    ASSERT_TRUE(save_png(dir_ / "g.png", gray));
    auto loaded = load_image(dir_ / "g.png");
    ASSERT_TRUE(loaded) << loaded.error().full();
    EXPECT_EQ(loaded->channels, 4);
    EXPECT_EQ(loaded->pixels, (std::vector<uint8_t>{0, 0, 0, 255, 100, 100, 100, 255, 255, 255, 255, 255}));
}

TEST_F(ImageIo, LibraryAssetLoads) {
    auto loaded = load_image(fs::path(CP_SOURCE_DIR) / "assets" / "coffee.png");
    ASSERT_TRUE(loaded) << loaded.error().full();
    EXPECT_GT(loaded->width, 0);
    EXPECT_EQ(loaded->pixels.size(), size_t(loaded->width) * loaded->height * 4);
}

// The data (a file name, a size, the first bytes) an error's message names: an image error has no field for them.
::testing::AssertionResult names(const Error& e, std::initializer_list<std::string> data) {
    for (const std::string& datum : data)
        if (e.message.find(datum) == std::string::npos)
            return ::testing::AssertionFailure() << "`" << datum << "` not in: " << e.full();
    return ::testing::AssertionSuccess();
}

TEST_F(ImageIo, MissingFile) {
    auto r = load_image(dir_ / "nope.png");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, ErrorKind::Io) << r.error().full();
    EXPECT_TRUE(names(r.error(), {(dir_ / "nope.png").string()}));
    auto d = load_image(dir_);
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error().kind, ErrorKind::Io) << d.error().full();
    EXPECT_TRUE(names(d.error(), {"`" + dir_.string() + "`"}));
}

TEST_F(ImageIo, ZeroByteFile) {
    write_bytes(dir_ / "empty.png", {});
    auto r = load_image(dir_ / "empty.png");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, ErrorKind::Io) << r.error().full();
    EXPECT_TRUE(names(r.error(), {(dir_ / "empty.png").string(), "0 bytes"}));
}

TEST_F(ImageIo, TruncatedFile) {
    ASSERT_TRUE(save_png(dir_ / "whole.png", noisy(64, 64)));
    std::vector<uint8_t> bytes = read_bytes(dir_ / "whole.png");
    ASSERT_GT(bytes.size(), 1000u);
    bytes.resize(bytes.size() / 2);
    write_bytes(dir_ / "half.png", bytes);
    auto r = load_image(dir_ / "half.png");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, ErrorKind::Io) << r.error().full();
    // The file, the byte it ends after and the chunk it ends in.
    EXPECT_TRUE(names(r.error(), {(dir_ / "half.png").string(), std::to_string(bytes.size()) + " bytes", "`IDAT`"}));
    EXPECT_FALSE(r.error().hint.empty());
}

TEST_F(ImageIo, CorruptFile) {
    write_bytes(dir_ / "junk.png", {'n', 'o', 't', ' ', 'a', 'n', ' ', 'i', 'm', 'a', 'g', 'e', 0, 1, 2, 3});
    auto r = load_image(dir_ / "junk.png");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, ErrorKind::Io) << r.error().full();
    // The file, its first 8 bytes in hex ("not an i") and the extension its bytes do not match.
    EXPECT_TRUE(names(r.error(), {(dir_ / "junk.png").string(), "6e 6f 74 20 61 6e 20 69", ".png"}));
    // The hint lists the formats that can be read.
    for (const char* format : {"PNG", "JPEG"})
        EXPECT_NE(r.error().hint.find(format), std::string::npos) << r.error().hint;
}

// A PNG signature and an IHDR chunk with the given size and colour type, and no pixel data at all:
// refusing it with a size message proves the size is checked from the header, before decoding.
std::vector<uint8_t> png_header_only(uint32_t width, uint32_t height, uint8_t colour_type) {
    auto be32 = [](std::vector<uint8_t>& v, uint32_t x) {
        for (int s = 24; s >= 0; s -= 8) v.push_back(static_cast<uint8_t>(x >> s));
    };
    std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    be32(png, 13);
    for (char c : std::string("IHDR")) png.push_back(static_cast<uint8_t>(c));
    be32(png, width);
    be32(png, height);
    png.insert(png.end(), {8, colour_type, 0, 0, 0});  // 8 bits, deflate, no filter, no interlace
    be32(png, 0);                                      // CRC (stb_image does not check it)
    return png;
}

TEST_F(ImageIo, HugeDimensionsRefusedBeforeDecoding) {
    // Gray: stb_image describes it, and our limit refuses it.
    write_bytes(dir_ / "huge_gray.png", png_header_only(20000, 20000, 0));
    auto r = load_image(dir_ / "huge_gray.png");
    ASSERT_FALSE(r);
    // The file is well formed: the image chosen is too large, a choice to change.
    EXPECT_EQ(r.error().kind, ErrorKind::UserInput) << r.error().full();
    // 20000 x 20000 = 381.5 Mi pixels over the limit of 256 Mi.
    EXPECT_TRUE(names(r.error(), {(dir_ / "huge_gray.png").string(), "20000x20000", "381.5", "256.0"}));
    // RGBA: too large for stb_image even to describe; the size still comes out in the message.
    write_bytes(dir_ / "huge_rgba.png", png_header_only(30000, 20000, 6));
    auto q = load_image(dir_ / "huge_rgba.png");
    ASSERT_FALSE(q);
    EXPECT_EQ(q.error().kind, ErrorKind::UserInput) << q.error().full();
    EXPECT_TRUE(names(q.error(), {(dir_ / "huge_rgba.png").string(), "30000x20000", "572.2"}));
}

TEST_F(ImageIo, CallerChosenPixelLimit) {
    ASSERT_TRUE(save_png(dir_ / "small.png", noisy(10, 10)));
    auto r = load_image(dir_ / "small.png", 99);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, ErrorKind::UserInput) << r.error().full();
    EXPECT_TRUE(names(r.error(), {"10x10"}));
    EXPECT_TRUE(load_image(dir_ / "small.png", 100));
}

TEST_F(ImageIo, SaveErrors) {
    Image bad = noisy(4, 4);
    bad.pixels.pop_back();
    auto r = save_png(dir_ / "bad.png", bad);
    ASSERT_FALSE(r);
    // An image that is not one is the caller's bug; a folder that is missing is the file system's refusal.
    EXPECT_EQ(r.error().kind, ErrorKind::Internal) << r.error().full();
    // 4x4 pixels of 4 channels are 64 bytes; the image holds 63.
    EXPECT_TRUE(names(r.error(), {"4x4x4", "64", "63"}));
    EXPECT_FALSE(fs::exists(dir_ / "bad.png"));
    auto missing_dir = save_png(dir_ / "no" / "such" / "x.png", noisy(2, 2));
    ASSERT_FALSE(missing_dir);
    EXPECT_EQ(missing_dir.error().kind, ErrorKind::Io) << missing_dir.error().full();
    EXPECT_TRUE(names(missing_dir.error(), {"`" + (dir_ / "no" / "such").string() + "`"}));
}

}  // namespace
}  // namespace cp
