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

TEST_F(ImageIo, MissingFile) {
    auto r = load_image(dir_ / "nope.png");
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("nope.png` does not exist"), std::string::npos) << r.error().full();
    auto d = load_image(dir_);
    ASSERT_FALSE(d);
    EXPECT_NE(d.error().message.find("is a folder"), std::string::npos);
}

TEST_F(ImageIo, ZeroByteFile) {
    write_bytes(dir_ / "empty.png", {});
    auto r = load_image(dir_ / "empty.png");
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("empty.png` is empty (0 bytes)"), std::string::npos) << r.error().full();
}

TEST_F(ImageIo, TruncatedFile) {
    ASSERT_TRUE(save_png(dir_ / "whole.png", noisy(64, 64)));
    std::vector<uint8_t> bytes = read_bytes(dir_ / "whole.png");
    ASSERT_GT(bytes.size(), 1000u);
    bytes.resize(bytes.size() / 2);
    write_bytes(dir_ / "half.png", bytes);
    auto r = load_image(dir_ / "half.png");
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("half.png` is a PNG file that was cut short: it ends after " +
                                     std::to_string(bytes.size()) + " bytes, inside its `IDAT` chunk"),
              std::string::npos) << r.error().full();
    EXPECT_NE(r.error().hint.find("Get or save the file again"), std::string::npos) << r.error().hint;
}

TEST_F(ImageIo, CorruptFile) {
    write_bytes(dir_ / "junk.png", {'n', 'o', 't', ' ', 'a', 'n', ' ', 'i', 'm', 'a', 'g', 'e', 0, 1, 2, 3});
    auto r = load_image(dir_ / "junk.png");
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("junk.png` is not in an image format the playground can read: its first bytes "
                                     "(6e 6f 74 20 61 6e 20 69) match none of them (its name ends in .png, but it "
                                     "does not start like a PNG file)"),
              std::string::npos) << r.error().full();
    EXPECT_NE(r.error().hint.find("PNG, JPEG"), std::string::npos);
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
    EXPECT_NE(r.error().message.find("huge_gray.png` is 20000x20000 (381.5 Mpixel); the limit is 256.0 Mpixel"),
              std::string::npos) << r.error().full();
    // RGBA: too large for stb_image even to describe; the size still comes out in the message.
    write_bytes(dir_ / "huge_rgba.png", png_header_only(30000, 20000, 6));
    auto q = load_image(dir_ / "huge_rgba.png");
    ASSERT_FALSE(q);
    EXPECT_NE(q.error().message.find("huge_rgba.png` is 30000x20000 (572.2 Mpixel)"), std::string::npos)
        << q.error().full();
}

TEST_F(ImageIo, CallerChosenPixelLimit) {
    ASSERT_TRUE(save_png(dir_ / "small.png", noisy(10, 10)));
    auto r = load_image(dir_ / "small.png", 99);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("is 10x10"), std::string::npos) << r.error().full();
    EXPECT_TRUE(load_image(dir_ / "small.png", 100));
}

TEST_F(ImageIo, SaveErrors) {
    Image bad = noisy(4, 4);
    bad.pixels.pop_back();
    auto r = save_png(dir_ / "bad.png", bad);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("4x4x4 = 64 bytes but holds 63"), std::string::npos) << r.error().full();
    auto missing_dir = save_png(dir_ / "no" / "such" / "x.png", noisy(2, 2));
    ASSERT_FALSE(missing_dir);
    EXPECT_NE(missing_dir.error().message.find("does not exist"), std::string::npos);
}

}  // namespace
}  // namespace cp
