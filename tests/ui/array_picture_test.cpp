// array_picture (ui/state/array_picture.h): which NumPy arrays are pictures, and their pixels, computed here.
#include "ui/state/array_picture.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace cp::ui;

namespace {

template <class T>
std::vector<std::byte> picture_bytes_of(const std::vector<T>& v) {
    std::vector<std::byte> b(v.size() * sizeof(T));
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

TEST(ArrayPicture, AnRgbByteArrayIsItsOwnColours) {
    const int h = 3, w = 5;
    std::vector<uint8_t> rgb(size_t(h * w * 3));
    for (size_t i = 0; i < rgb.size(); ++i) rgb[i] = uint8_t(i * 7);
    auto pic = array_picture(picture_bytes_of(rgb), "uint8", {uint64_t(h), uint64_t(w), 3});
    ASSERT_TRUE(pic);
    EXPECT_TRUE(pic->colour);
    EXPECT_EQ(pic->width, w);
    EXPECT_EQ(pic->height, h);
    for (int p = 0; p < h * w; ++p) {
        for (int k = 0; k < 3; ++k) EXPECT_EQ(pic->rgba[size_t(p * 4 + k)], rgb[size_t(p * 3 + k)]);
        EXPECT_EQ(pic->rgba[size_t(p * 4 + 3)], 255);
    }
}

TEST(ArrayPicture, A2DFloatArrayIsGreyFromItsMinToItsMax) {
    const int h = 4, w = 7;
    std::vector<float> v(size_t(h * w));
    for (int i = 0; i < h * w; ++i) v[size_t(i)] = -2.0f + 0.5f * float(i);  // -2 .. 11.5
    auto pic = array_picture(picture_bytes_of(v), "float32", {uint64_t(h), uint64_t(w)});
    ASSERT_TRUE(pic);
    EXPECT_FALSE(pic->colour);
    EXPECT_DOUBLE_EQ(pic->lo, -2.0);
    EXPECT_DOUBLE_EQ(pic->hi, 11.5);
    for (int i = 0; i < h * w; ++i) {
        const long grey = std::lround((v[size_t(i)] + 2.0) / 13.5 * 255.0);
        EXPECT_EQ(pic->rgba[size_t(i * 4)], grey) << i;
        EXPECT_EQ(pic->rgba[size_t(i * 4 + 1)], grey);
    }
}

TEST(ArrayPicture, OtherArraysAreNotPictures) {
    std::vector<float> v(60);
    EXPECT_FALSE(array_picture(picture_bytes_of(v), "float32", {60}));            // 1D: plotted
    EXPECT_FALSE(array_picture(picture_bytes_of(v), "float32", {4, 5, 3}));       // float RGB: not guessed at
    EXPECT_FALSE(array_picture(picture_bytes_of(v), "float32", {6, 11}));         // the size does not match
    EXPECT_FALSE(array_picture(picture_bytes_of(v), "complex64", {6, 5}));        // a type not shown
    EXPECT_FALSE(array_picture(picture_bytes_of(v), "float32", {1, 60}));         // one row
    std::vector<uint8_t> b(2 * 3 * 2);
    EXPECT_FALSE(array_picture(picture_bytes_of(b), "uint8", {2, 3, 2}));         // two channels
    EXPECT_TRUE(array_picture(picture_bytes_of(b), "uint8", {2, 6}));
}

}  // namespace
