// The render layer on a headless EGL context: buffer textures keep values exactly per element type, the
// GPU min/max reduction agrees with the host (negatives, NaN and infinities ignored), and the colormap pass
// writes the expected colours.
#include "render/buffer_texture.h"
#include "render/colormap_pass.h"
#include "render/render_target.h"

#include "core/data/colormap.h"
#include "ui_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

using namespace cp;
using namespace cp::render;

namespace {

class RenderTest : public ::testing::Test {
protected:
    void SetUp() override {
        auto t = make_headless_target({64, 64, ""});
        ASSERT_TRUE(t.ok()) << t.error().full();
        target_ = std::move(*t);
        auto p = ColormapPass::create();
        ASSERT_TRUE(p.ok()) << p.error().full();
        pass_ = std::move(*p);
    }
    void TearDown() override {
        pass_.reset();
        target_.reset();
    }
    // RGBA8 pixels of a display texture (all zero when the GPU did not finish drawing them).
    static std::vector<uint8_t> pixels(const Texture& t, int level = 0) {
        const int w = std::max(1, t.width() >> level), h = std::max(1, t.height() >> level);
        std::vector<uint8_t> out(size_t(w) * h * 4);
        if (auto finished = uitest::gpu_finishes_within(20); !finished) {
            ADD_FAILURE() << finished.message();
            return out;
        }
        glGetTextureImage(t.id(), level, GL_RGBA, GL_UNSIGNED_BYTE, GLsizei(out.size()), out.data());
        return out;
    }
    std::unique_ptr<RenderTarget> target_;
    std::unique_ptr<ColormapPass> pass_;
};

template <class T>
const std::byte* bytes_of(const std::vector<T>& v) {
    return reinterpret_cast<const std::byte*>(v.data());
}


TEST_F(RenderTest, FloatRangeIgnoresNanAndInfinity) {
    const int w = 37, h = 23;  // not multiples of the reduction's 64x64 patches
    std::vector<float> data(size_t(w) * h);
    for (size_t i = 0; i < data.size(); ++i) data[i] = float(std::sin(double(i) * 0.37) * 5.0 - 1.5);
    data[17] = std::numeric_limits<float>::quiet_NaN();
    data[400] = std::numeric_limits<float>::infinity();
    data[401] = -std::numeric_limits<float>::infinity();
    double lo = 1e30, hi = -1e30;
    for (float v : data)
        if (std::isfinite(v)) lo = std::min(lo, double(v)), hi = std::max(hi, double(v));
    BufferTexture tex(ElemType::Float, w, h, nullptr);
    ASSERT_TRUE(tex.upload_from_host(bytes_of(data), data.size() * 4).ok());
    const ValueRange r = pass_->value_range(tex, -1);
    ASSERT_TRUE(r.valid);
    EXPECT_FLOAT_EQ(float(r.min), float(lo));
    EXPECT_FLOAT_EQ(float(r.max), float(hi));
    EXPECT_FLOAT_EQ(float(tex.read_element(3, 2)[0]), data[2 * w + 3]);
}

TEST_F(RenderTest, GrayAndViridisFollowTheNormalisedValue) {
    const int w = 256, h = 3;
    std::vector<float> data(size_t(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) data[size_t(y) * w + x] = 10.0f + float(x) * 2.0f;  // 10 .. 520
    BufferTexture tex(ElemType::Float, w, h, nullptr);
    ASSERT_TRUE(tex.upload_from_host(bytes_of(data), data.size() * 4).ok());
    DisplaySettings s;
    s.colormap = Colormap::Gray;
    Texture display;
    pass_->render(tex, s, pass_->value_range(tex, -1), display);
    auto px = pixels(display);
    for (int x : {0, 64, 128, 255}) {
        EXPECT_NEAR(px[size_t(x) * 4], x, 1) << "gray at " << x;
        EXPECT_EQ(px[size_t(x) * 4 + 3], 255);
    }
    // A fixed range clamps: everything above 265 is white.
    s.auto_range = false;
    s.range_min = 10;
    s.range_max = 265;
    pass_->render(tex, s, {}, display);
    px = pixels(display);
    EXPECT_NEAR(px[size_t(32) * 4], 64, 1);  // value 74: (74 - 10) / 255
    EXPECT_EQ(px[size_t(200) * 4], 255);
    // Viridis: the same table the PNG export uses.
    s.auto_range = true;
    s.colormap = Colormap::Viridis;
    pass_->render(tex, s, pass_->value_range(tex, -1), display);
    px = pixels(display);
    const auto& table = colormap_table("viridis");
    for (int x : {0, 100, 255})
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(px[size_t(x) * 4 + size_t(c)], table[size_t(x)][size_t(c)], 2) << x << "," << c;
}

TEST_F(RenderTest, BytePixelsPassThroughAndChannelsCanBePicked) {
    const int w = 5, h = 4;
    std::vector<uint8_t> rgba(size_t(w) * h * 4);
    for (size_t i = 0; i < rgba.size(); ++i) rgba[i] = uint8_t((i * 37) % 256);
    BufferTexture tex(ElemType::UChar4, w, h, nullptr);
    ASSERT_TRUE(tex.upload_from_host(bytes_of(rgba), rgba.size()).ok());
    DisplaySettings s;
    s.auto_range = false;
    s.range_min = 0;
    s.range_max = 255;
    Texture display;
    pass_->render(tex, s, {}, display);
    auto px = pixels(display);
    for (size_t i = 0; i < size_t(w) * h; ++i) {
        for (int c = 0; c < 3; ++c) EXPECT_EQ(px[i * 4 + size_t(c)], rgba[i * 4 + size_t(c)]) << i;
        EXPECT_EQ(px[i * 4 + 3], 255) << "alpha is shown opaque unless asked";
    }
    const auto e = tex.read_element(2, 3);
    for (int c = 0; c < 4; ++c) EXPECT_EQ(e[size_t(c)], rgba[(size_t(3) * w + 2) * 4 + size_t(c)]);
    // Channel 1 (green) alone through gray: every colour channel shows the green value.
    s.channel = 1;
    pass_->render(tex, s, {}, display);
    px = pixels(display);
    for (size_t i = 0; i < size_t(w) * h; ++i) EXPECT_NEAR(px[i * 4], rgba[i * 4 + 1], 1) << i;
}

// A minified view samples the mip chain: every level must be the 2x2 box average of the one above (the pass
// writes them itself), computed here from level 0 as read back, on odd sizes where the last row and column
// have no partner.
TEST_F(RenderTest, MipLevelsAreBoxAveragesOfTheLevelAbove) {
    const int w = 75, h = 41;
    std::vector<uint8_t> rgba(size_t(w) * h * 4);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < 4; ++c) rgba[(size_t(y) * w + x) * 4 + size_t(c)] = uint8_t((x * 7 + y * 13 + c * 50) % 256);
    BufferTexture tex(ElemType::UChar4, w, h, nullptr);
    ASSERT_TRUE(tex.upload_from_host(bytes_of(rgba), rgba.size()).ok());
    DisplaySettings s;
    s.auto_range = false;
    s.range_min = 0;
    s.range_max = 255;
    Texture display;
    pass_->render(tex, s, {}, display);
    ASSERT_EQ(display.levels(), 7);  // 75x41 .. 1x1
    std::vector<uint8_t> above = pixels(display, 0);
    for (size_t i = 0; i < size_t(w) * h; ++i) ASSERT_EQ(above[i * 4], rgba[i * 4]) << "level 0, texel " << i;
    int aw = w, ah = h;
    for (int level = 1; level < display.levels(); ++level) {
        const int lw = std::max(1, w >> level), lh = std::max(1, h >> level);
        const std::vector<uint8_t> got = pixels(display, level);
        for (int y = 0; y < lh; ++y)
            for (int x = 0; x < lw; ++x)
                for (int c = 0; c < 4; ++c) {
                    double sum = 0;
                    int n = 0;
                    for (int dy = 0; dy < 2; ++dy)
                        for (int dx = 0; dx < 2; ++dx)
                            if (2 * x + dx < aw && 2 * y + dy < ah) {
                                sum += above[((size_t(2 * y + dy)) * aw + size_t(2 * x + dx)) * 4 + size_t(c)];
                                ++n;
                            }
                    // One step of rounding per level (the levels are stored as bytes).
                    ASSERT_NEAR(got[(size_t(y) * lw + x) * 4 + size_t(c)], sum / n, 1.0)
                        << "level " << level << " texel (" << x << "," << y << ") channel " << c;
                }
        above = got;
        aw = lw;
        ah = lh;
    }
}

TEST_F(RenderTest, IntegerAndConvertedTypesKeepTheirValues) {
    const int w = 7, h = 3;
    std::vector<int32_t> ints(size_t(w) * h);
    for (size_t i = 0; i < ints.size(); ++i) ints[i] = int32_t(i) * 1000 - 5000;
    BufferTexture itex(ElemType::Int, w, h, nullptr);
    ASSERT_TRUE(itex.upload_from_host(bytes_of(ints), ints.size() * 4).ok());
    EXPECT_EQ(itex.read_element(4, 2)[0], ints[2 * w + 4]);
    const ValueRange r = pass_->value_range(itex, 0);
    EXPECT_DOUBLE_EQ(r.min, -5000);
    EXPECT_DOUBLE_EQ(r.max, double(ints.back()));

    std::vector<double> doubles(size_t(w) * h);
    for (size_t i = 0; i < doubles.size(); ++i) doubles[i] = double(i) / 4.0;
    BufferTexture dtex(ElemType::Double, w, h, nullptr);
    EXPECT_FALSE(dtex.can_copy_from_device());
    ASSERT_TRUE(dtex.upload_from_host(bytes_of(doubles), doubles.size() * 8).ok());
    EXPECT_DOUBLE_EQ(dtex.read_element(6, 1)[0], doubles[w + 6]);

    // Too little data is an error, not a crash: the view's size expressions (the file's header) disagree.
    const auto short_upload = dtex.upload_from_host(bytes_of(doubles), 8);
    ASSERT_FALSE(short_upload.ok());
    EXPECT_EQ(short_upload.error().kind, ErrorKind::Metadata) << short_upload.error().message;
    // A double view has no device path: unsupported, not unknown.
    const auto no_device = dtex.copy_from_device(0, doubles.size() * 8);
    ASSERT_FALSE(no_device.ok());
    EXPECT_EQ(no_device.error().kind, ErrorKind::Unsupported) << no_device.error().message;
}

// A picture that cannot be saved says what kind of failure it is.
TEST(RenderErrors, SavingAPictureFailsWithAKind) {
    Image image;
    image.width = 3;
    image.height = 2;
    image.pixels.assign(size_t(3 * 2 * 4), 200);
    const auto no_folder = write_png("/nonexistent/folder/shot.png", image);
    ASSERT_FALSE(no_folder.ok());
    EXPECT_EQ(no_folder.error().kind, ErrorKind::Io) << no_folder.error().message;
    const auto empty = write_png("/tmp/never_written.png", Image{});
    ASSERT_FALSE(empty.ok());
    EXPECT_EQ(empty.error().kind, ErrorKind::Internal) << empty.error().message;
}

// The check behind "the picture is never silently wrong": a texture whose upload went wrong (here injected:
// zeros where the read-back has values, as a stale interop copy leaves it) is told apart from the buffer.
TEST_F(RenderTest, SampledTexelsTellAStaleTextureFromTheReadBack) {
    const int w = 333, h = 97;  // 32301 elements: samples fall on odd places
    std::vector<float> data(size_t(w) * h);
    for (size_t i = 0; i < data.size(); ++i) data[i] = float(i) * 0.5f + 1.0f;
    BufferTexture texture(ElemType::Float, w, h, nullptr);
    ASSERT_TRUE(texture.upload_from_host(bytes_of(data), data.size() * 4).ok());
    EXPECT_TRUE(texture.matches_host(bytes_of(data), data.size() * 4, 64));

    const std::vector<float> zeros(data.size(), 0.0f);
    ASSERT_TRUE(texture.upload_from_host(bytes_of(zeros), zeros.size() * 4).ok());  // the corrupt upload
    std::string where;
    EXPECT_FALSE(texture.matches_host(bytes_of(data), data.size() * 4, 64, &where));
    EXPECT_EQ(where, "texel (0,0)");

    // One wrong element among many is found when it is sampled (the last one always is).
    std::vector<float> almost = data;
    almost.back() = -7.0f;
    ASSERT_TRUE(texture.upload_from_host(bytes_of(almost), almost.size() * 4).ok());
    EXPECT_FALSE(texture.matches_host(bytes_of(data), data.size() * 4, 64, &where));
    EXPECT_EQ(where, "texel (" + std::to_string(w - 1) + "," + std::to_string(h - 1) + ")");
}

}  // namespace
