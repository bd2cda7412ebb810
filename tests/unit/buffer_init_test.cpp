// Buffer initialisers: every kind on scalar and vector element types, deterministic random numbers,
// and images converted to the buffer's element type.
#include "core/data/buffer_init.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

namespace cp {
namespace {

BufferSpec spec(ElemType type, BufferInit init) {
    BufferSpec s;
    s.name = "buf";
    s.type = type;
    s.init = std::move(init);
    return s;
}

HostBuffer sized(ElemType type, size_t count, uint8_t garbage = 0xAB) {
    HostBuffer b;
    b.type = type;
    b.bytes.assign(count * elem_info(type).size, std::byte{garbage});
    return b;
}

HostBuffer filled(ElemType type, size_t count, BufferInit init, const Image* image = nullptr) {
    HostBuffer b = sized(type, count);
    auto r = fill_buffer(spec(type, std::move(init)), b, image);
    EXPECT_TRUE(r) << r.error().full();
    return b;
}

BufferInit constant(double v) {
    BufferInit i;
    i.kind = BufferInit::Kind::Constant;
    i.constant = v;
    return i;
}
BufferInit ramp(double start, double step) {
    BufferInit i;
    i.kind = BufferInit::Kind::Ramp;
    i.start = start;
    i.step = step;
    return i;
}
BufferInit random_init(uint64_t seed, double min, double max) {
    BufferInit i;
    i.kind = BufferInit::Kind::Random;
    i.seed = seed;
    i.min = min;
    i.max = max;
    return i;
}
BufferInit image_init() {
    BufferInit i;
    i.kind = BufferInit::Kind::Image;
    i.image = "test.png";
    return i;
}

TEST(BufferInit, ZerosOverwriteEverything) {
    for (ElemType t : {ElemType::Float, ElemType::UChar4, ElemType::Double, ElemType::Int3}) {
        const HostBuffer b = filled(t, 7, BufferInit{});
        EXPECT_EQ(b.count(), 7u);
        for (std::byte x : b.bytes) EXPECT_EQ(x, std::byte{0});
        EXPECT_EQ(b.name, "buf");
    }
}

TEST(BufferInit, ConstantOnEveryComponent) {
    const HostBuffer ints = filled(ElemType::Int, 5, constant(-1));
    for (size_t i = 0; i < 5; ++i) EXPECT_EQ(ints.as<int32_t>()[i], -1);
    const HostBuffer f4 = filled(ElemType::Float4, 3, constant(2.5));
    for (size_t i = 0; i < 12; ++i) EXPECT_EQ(f4.as<float>()[i], 2.5f);
    const HostBuffer u4 = filled(ElemType::UChar4, 2, constant(7));
    for (size_t i = 0; i < 8; ++i) EXPECT_EQ(u4.as<uint8_t>()[i], 7);
    // Out-of-range values clamp instead of wrapping.
    EXPECT_EQ(filled(ElemType::UChar, 1, constant(300)).as<uint8_t>()[0], 255);
    EXPECT_EQ(filled(ElemType::UChar, 1, constant(-5)).as<uint8_t>()[0], 0);
    EXPECT_EQ(filled(ElemType::Short, 1, constant(-40000)).as<int16_t>()[0], -32768);
    EXPECT_EQ(filled(ElemType::Double, 1, constant(1e-300)).as<double>()[0], 1e-300);
    EXPECT_EQ(filled(ElemType::ULongLong, 1, constant(1e15)).as<uint64_t>()[0], 1000000000000000ull);
}

TEST(BufferInit, RampPerElement) {
    const HostBuffer f = filled(ElemType::Float, 1001, ramp(0, 0.001));
    for (size_t i = 0; i < 1001; i += 100) EXPECT_EQ(f.as<float>()[i], static_cast<float>(i * 0.001)) << i;
    const HostBuffer ints = filled(ElemType::Int, 4, ramp(10, -3));
    EXPECT_EQ(std::vector<int32_t>(ints.as<int32_t>(), ints.as<int32_t>() + 4), (std::vector<int32_t>{10, 7, 4, 1}));
    const HostBuffer i2 = filled(ElemType::Int2, 3, ramp(1, 1));
    EXPECT_EQ(std::vector<int32_t>(i2.as<int32_t>(), i2.as<int32_t>() + 6), (std::vector<int32_t>{1, 1, 2, 2, 3, 3}));
}

TEST(BufferInit, RandomIsDeterministicAndInRange) {
    const HostBuffer a = filled(ElemType::Float, 10000, random_init(1, -1, 1));
    const HostBuffer b = filled(ElemType::Float, 10000, random_init(1, -1, 1));
    const HostBuffer c = filled(ElemType::Float, 10000, random_init(2, -1, 1));
    EXPECT_EQ(a.bytes, b.bytes);
    EXPECT_NE(a.bytes, c.bytes);
    double sum = 0, lo = 1, hi = -1;
    for (size_t i = 0; i < 10000; ++i) {
        const float v = a.as<float>()[i];
        ASSERT_GE(v, -1.0f);
        ASSERT_LE(v, 1.0f);
        sum += v;
        lo = std::min(lo, double(v));
        hi = std::max(hi, double(v));
    }
    EXPECT_LT(std::fabs(sum / 10000), 0.05);  // centred
    EXPECT_LT(lo, -0.99);                     // spread over the whole range
    EXPECT_GT(hi, 0.99);
}

TEST(BufferInit, RandomIntegersHitEveryValueIncludingTheEnds) {
    const HostBuffer b = filled(ElemType::Int, 4000, random_init(9, 0, 3));
    std::vector<int> histogram(4, 0);
    for (size_t i = 0; i < 4000; ++i) {
        const int v = b.as<int32_t>()[i];
        ASSERT_GE(v, 0);
        ASSERT_LE(v, 3);
        ++histogram[v];
    }
    for (int h : histogram) EXPECT_GT(h, 800) << "roughly 1000 each";  // the ends are not half as likely
    // Vector types: every component drawn separately.
    const HostBuffer u4 = filled(ElemType::UChar4, 100, random_init(3, 0, 255));
    std::set<uint8_t> distinct(u4.as<uint8_t>(), u4.as<uint8_t>() + 400);
    EXPECT_GT(distinct.size(), 100u);
}

Image test_image() {
    Image img;  // 3x2 RGBA
    img.width = 3;
    img.height = 2;
    img.channels = 4;
    img.pixels = {255, 0,   0,   10,  0,  255, 0,  20,  0,   0,   255, 30,
                  10,  20,  30,  40,  0,  0,   0,  50,  255, 255, 255, 60};
    return img;
}

TEST(BufferInit, ImageIntoUchar4CopiesPixels) {
    const Image img = test_image();
    const HostBuffer b = filled(ElemType::UChar4, 6, image_init(), &img);
    EXPECT_EQ(std::vector<uint8_t>(b.as<uint8_t>(), b.as<uint8_t>() + 24), img.pixels);
}

TEST(BufferInit, ImageIntoGrayAndFloat) {
    const Image img = test_image();
    // Luma by hand: 0.299*255 = 76.2 -> 76; 0.587*255 = 149.7 -> 150; 0.114*255 = 29.1 -> 29;
    // 0.299*10 + 0.587*20 + 0.114*30 = 18.15 -> 18; black 0; white 255.
    const std::vector<uint8_t> luma = {76, 150, 29, 18, 0, 255};
    const HostBuffer gray = filled(ElemType::UChar, 6, image_init(), &img);
    EXPECT_EQ(std::vector<uint8_t>(gray.as<uint8_t>(), gray.as<uint8_t>() + 6), luma);
    const HostBuffer f = filled(ElemType::Float, 6, image_init(), &img);
    for (size_t i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(f.as<float>()[i], luma[i] / 255.0f) << i;
    const HostBuffer f4 = filled(ElemType::Float4, 6, image_init(), &img);
    for (size_t i = 0; i < 24; ++i) EXPECT_FLOAT_EQ(f4.as<float>()[i], img.pixels[i] / 255.0f) << i;
}

TEST(BufferInit, ImageIntoPackedRgbAndRgbaBytes) {
    const Image img = test_image();
    // 3 values per pixel: r, g, b of each pixel in turn (`rgb[idx * 3 + c]`); 4: with alpha.
    const HostBuffer rgb = filled(ElemType::UChar, 18, image_init(), &img);
    for (size_t p = 0; p < 6; ++p)
        for (size_t c = 0; c < 3; ++c) EXPECT_EQ(rgb.as<uint8_t>()[p * 3 + c], img.pixels[p * 4 + c]) << p << " " << c;
    const HostBuffer rgba = filled(ElemType::UChar, 24, image_init(), &img);
    EXPECT_EQ(std::vector<uint8_t>(rgba.as<uint8_t>(), rgba.as<uint8_t>() + 24), img.pixels);
    const HostBuffer f = filled(ElemType::Float, 18, image_init(), &img);
    EXPECT_FLOAT_EQ(f.as<float>()[4], img.pixels[5] / 255.0f);  // pixel 1, green
    HostBuffer twice = sized(ElemType::UChar, 12);  // 2 per pixel is no layout
    EXPECT_FALSE(fill_buffer(spec(ElemType::UChar, image_init()), twice, &img));
    HostBuffer packed_vector = sized(ElemType::UChar4, 18);  // packing is for one-component buffers only
    EXPECT_FALSE(fill_buffer(spec(ElemType::UChar4, image_init()), packed_vector, &img));
}

TEST(BufferInit, GrayImageIntoUchar4) {
    Image gray;
    gray.width = 2;
    gray.height = 1;
    gray.channels = 1;
    gray.pixels = {9, 200};
    const HostBuffer b = filled(ElemType::UChar4, 2, image_init(), &gray);
    EXPECT_EQ(std::vector<uint8_t>(b.as<uint8_t>(), b.as<uint8_t>() + 8), (std::vector<uint8_t>{9, 9, 9, 255, 200, 200, 200, 255}));
}

TEST(BufferInit, ImageErrors) {
    const Image img = test_image();
    HostBuffer wrong = sized(ElemType::UChar4, 5);
    auto r = fill_buffer(spec(ElemType::UChar4, image_init()), wrong, &img);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("buffer `buf` has 5 elements but its image `test.png` is 3x2 = 6 pixels"),
              std::string::npos) << r.error().full();
    EXPECT_NE(r.error().hint.find("buf.width * buf.height"), std::string::npos);

    HostBuffer ok_size = sized(ElemType::UChar4, 6);
    EXPECT_FALSE(fill_buffer(spec(ElemType::UChar4, image_init()), ok_size, nullptr));
    HostBuffer ints = sized(ElemType::Int, 6);
    auto t = fill_buffer(spec(ElemType::Int, image_init()), ints, &img);
    ASSERT_FALSE(t);
    EXPECT_NE(t.error().message.find("an image cannot fill"), std::string::npos);
}

TEST(BufferInit, PartialElementIsAnError) {
    HostBuffer b;
    b.bytes.resize(10);  // not a whole number of 4-byte floats
    EXPECT_FALSE(fill_buffer(spec(ElemType::Float, BufferInit{}), b, nullptr));
}

}  // namespace
}  // namespace cp
