// Library lessons on sizes a GPU takes in its stride but the CPU backend's guard pages make awkward: a kernel
// that reads a uchar4 image as uint4s (four pixels per load) on a 601 x 401 photo, whose 964,004 bytes are not a
// multiple of 16. A GPU starts buffers 256-byte aligned; the CPU backend now starts such a kernel's buffers
// 16-byte aligned too, so the lesson runs (it stopped with MISALIGNED_ADDRESS) and its pixels are right.
#include "core/data/image_io.h"
#include "cli_support.h"

#include <gtest/gtest.h>

#include <cstdlib>

using cp::test::cli;
using cp::test::TempDir;

TEST(OddSizeLessons, GrayscaleFastReadsFourPixelsAtATimeFromA601x401Photo) {
    TempDir dir;
    cp::Image photo;
    photo.width = 601;
    photo.height = 401;
    photo.pixels.resize(size_t(photo.width) * photo.height * 4);
    for (int y = 0; y < photo.height; ++y)
        for (int x = 0; x < photo.width; ++x) {
            uint8_t* p = photo.pixels.data() + (size_t(y) * photo.width + x) * 4;
            p[0] = uint8_t(x * 7 + y * 3), p[1] = uint8_t(x * 5), p[2] = uint8_t(y * 11), p[3] = uint8_t(200 + x % 50);
        }
    const auto input = dir.path() / "odd.png";
    ASSERT_TRUE(cp::save_png(input, photo).ok());
    auto r = cli({"run", "image/grayscale_fast", "--backend", "cpu", "--set", "src=" + input.string(), "--repeat", "1",
                  "--out-dir", dir.path().string()});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    EXPECT_NE(r.out.find("Matches the CPU reference"), std::string::npos) << r.out;
    auto out = cp::load_image(dir.path() / "dst.png");
    ASSERT_TRUE(out.ok()) << out.error().full();
    ASSERT_EQ(out->width, photo.width);
    ASSERT_EQ(out->height, photo.height);
    size_t wrong = 0;
    for (size_t i = 0; i < size_t(photo.width) * photo.height; ++i) {
        const uint8_t* s = photo.pixels.data() + i * 4;
        const uint8_t* d = out->pixels.data() + i * 4;
        const int luma = int((299u * s[0] + 587u * s[1] + 114u * s[2] + 500) / 1000);  // rounded half up
        wrong += std::abs(d[0] - luma) > 1 || d[0] != d[1] || d[1] != d[2] || d[3] != s[3];
    }
    EXPECT_EQ(wrong, 0u);
}
