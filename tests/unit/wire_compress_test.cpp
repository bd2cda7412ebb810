// The remote link's codec (core/remote/wire_compress.h): blobs round-trip through zstd whether they compress or
// not, small and incompressible ones stay raw, a damaged frame is an error, and a preview is the box filter of
// the picture (computed here the slow way) on sizes that are not multiples of the factor.
#include "core/remote/wire_compress.h"
#include "core/engine/engine_wire.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <random>

namespace cp {
namespace {

std::vector<std::byte> gradient_bytes(size_t n) {  // a picture-like ramp: compresses well
    std::vector<std::byte> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = std::byte(uint8_t((i / 7) % 251));
    return v;
}

std::vector<std::byte> random_bytes(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::byte> v(n);
    for (auto& b : v) b = std::byte(uint8_t(rng()));
    return v;
}

TEST(WireCompress, CompressibleAndIncompressibleBlobsRoundTrip) {
    for (const auto& data : {gradient_bytes(1 << 20), random_bytes(300001, 7), std::vector<std::byte>{}}) {
        const auto packed = zstd_compress(data);
        auto back = zstd_decompress(packed, data.size());
        ASSERT_TRUE(back) << back.error().message;
        EXPECT_TRUE(*back == data);
    }
    EXPECT_LT(zstd_compress(gradient_bytes(1 << 20)).size(), (1u << 20) / 20);
}

TEST(WireCompress, OnlyLargeCompressibleBlobsAreCompressedAndMarked) {
    // A read-back answer as the worker sends it, through compress_blob and back.
    ReadBackResult rb;
    rb.data = gradient_bytes(960'000);
    rb.elapsed_ms = 1.5;
    WireMessage m = encode_response(Response{rb});
    ASSERT_TRUE(compress_blob(m));
    EXPECT_LT(m.blob.size(), rb.data.size() / 10);
    EXPECT_EQ(nlohmann::json::parse(m.json)["blob_zstd"], 960'000);
    ASSERT_FALSE(decompress_blob(m));
    auto decoded = decode_response(m);
    ASSERT_TRUE(decoded) << decoded.error().message;
    EXPECT_TRUE(std::get<ReadBackResult>(*decoded).data == rb.data);

    WireMessage small{R"({"type":"upload"})", gradient_bytes(kCompressMinBytes - 1), {}};
    EXPECT_FALSE(compress_blob(small));  // too small to be worth it: raw, unmarked
    EXPECT_EQ(small.json, R"({"type":"upload"})");
    WireMessage noise{R"({"type":"upload"})", random_bytes(100'000, 3), {}};
    const auto raw = noise.blob;
    EXPECT_FALSE(compress_blob(noise));  // zstd makes it no smaller: raw
    EXPECT_TRUE(noise.blob == raw);
    EXPECT_FALSE(decompress_blob(noise));  // an unmarked message is left as it is
    EXPECT_TRUE(noise.blob == raw);
}

TEST(WireCompress, ADamagedOrOversizedFrameIsAnError) {
    WireMessage m{R"({"type":"upload"})", gradient_bytes(50'000), {}};
    ASSERT_TRUE(compress_blob(m));
    WireMessage cut = m;
    cut.blob.resize(cut.blob.size() / 2);
    auto e = decompress_blob(cut);
    ASSERT_TRUE(e);
    EXPECT_NE(e->message.find("damaged"), std::string::npos) << e->message;
    WireMessage lying = m;
    lying.json = R"({"type":"upload","blob_zstd":10})";  // says less than the frame holds
    e = decompress_blob(lying);
    ASSERT_TRUE(e);
    EXPECT_NE(e->message.find("more than the 10 expected"), std::string::npos) << e->message;
}

TEST(WireCompress, ADeltaCodedPictureRoundTripsAndCompressesBetter) {
    // 37 x 11 uchar4 (rows not a multiple of anything), a smooth ramp: each component's left differences repeat.
    const uint32_t w = 37, h = 11;
    std::vector<std::byte> pixels(size_t(w) * h * 4);
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x)
            for (uint32_t c = 0; c < 4; ++c)
                pixels[(size_t(y) * w + x) * 4 + c] = std::byte(uint8_t(x * (c + 1) * 3 + y * 7 + (c == 3 ? 255 : 0)));
    WireMessage m{R"({"type":"read_back"})", pixels, {}};
    delta_encode_picture(m, w, 4);
    EXPECT_FALSE(m.blob == pixels);
    EXPECT_LT(zstd_compress(m.blob).size(), zstd_compress(pixels).size());
    // Plane 0 (the first component), row 0: the first pixel as it is, then the differences from the left (3).
    EXPECT_EQ(std::to_integer<int>(m.blob[0]), 0);
    EXPECT_EQ(std::to_integer<int>(m.blob[1]), 3);
    EXPECT_EQ(std::to_integer<int>(m.blob[w]), 7);  // row 1's first pixel: its difference from the one above
    ASSERT_FALSE(delta_decode_picture(m));
    EXPECT_TRUE(m.blob == pixels);
    EXPECT_EQ(m.json, R"({"type":"read_back"})");

    WireMessage bad{R"({"type":"read_back","blob_delta":[10,4]})", std::vector<std::byte>(44), {}};
    auto e = delta_decode_picture(bad);  // 44 bytes are not rows of 10 x 4
    ASSERT_TRUE(e);
    EXPECT_NE(e->message.find("not rows of 10 x 4"), std::string::npos) << e->message;
}

// The preview the slow way: each preview element is the mean of the f x f elements it covers, clipped at the
// picture's edges.
template <class T>
std::vector<double> box_reference(const std::vector<T>& in, int w, int h, int c, int f, int& ow, int& oh) {
    ow = (w + f - 1) / f, oh = (h + f - 1) / f;
    std::vector<double> out(size_t(ow) * oh * c);
    for (int oy = 0; oy < oh; ++oy)
        for (int ox = 0; ox < ow; ++ox)
            for (int k = 0; k < c; ++k) {
                double sum = 0;
                int n = 0;
                for (int y = oy * f; y < std::min(h, oy * f + f); ++y)
                    for (int x = ox * f; x < std::min(w, ox * f + f); ++x, ++n)
                        sum += double(in[(size_t(y) * w + x) * c + k]);
                out[(size_t(oy) * ow + ox) * c + k] = sum / n;
            }
    return out;
}

TEST(WireCompress, APreviewIsTheBoxFilterOnSidesNotAMultipleOfTheFactor) {
    // uchar4, 103 x 58 into at most 40 x 40: factor 3 (103 / 40 rounds up to 3), 35 x 20, the last column
    // covers 1 pixel and the last row 1.
    const int w = 103, h = 58;
    std::vector<uint8_t> pixels(size_t(w) * h * 4);
    for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = uint8_t((i * 37 + i / 411) % 256);
    std::vector<std::byte> bytes(pixels.size());
    std::memcpy(bytes.data(), pixels.data(), pixels.size());
    uint32_t ow = 0, oh = 0;
    const auto preview = box_downscale(bytes, w, h, 4, false, 40, 40, ow, oh);
    int rw = 0, rh = 0;
    const auto expected = box_reference(pixels, w, h, 4, 3, rw, rh);
    ASSERT_EQ(ow, 35u);
    ASSERT_EQ(oh, 20u);
    ASSERT_EQ(preview.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i)
        ASSERT_EQ(std::to_integer<int>(preview[i]), int(std::floor(expected[i] + 0.5))) << "component " << i;

    // float (one component), 50 x 31 into at most 1000 x 9: the height decides (factor 4), 13 x 8.
    const int fw = 50, fh = 31;
    std::vector<float> values(size_t(fw) * fh);
    for (size_t i = 0; i < values.size(); ++i) values[i] = float(std::sin(double(i)) * 100.0);
    std::vector<std::byte> fbytes(values.size() * sizeof(float));
    std::memcpy(fbytes.data(), values.data(), fbytes.size());
    const auto fpreview = box_downscale(fbytes, fw, fh, 1, true, 1000, 9, ow, oh);
    const auto fexpected = box_reference(values, fw, fh, 1, 4, rw, rh);
    ASSERT_EQ(ow, 13u);
    ASSERT_EQ(oh, 8u);
    ASSERT_EQ(fpreview.size(), fexpected.size() * sizeof(float));
    for (size_t i = 0; i < fexpected.size(); ++i) {
        float v;
        std::memcpy(&v, fpreview.data() + i * sizeof(float), sizeof v);
        ASSERT_NEAR(v, fexpected[i], 1e-4) << "element " << i;
    }
}

TEST(WireCompress, AReadBackAnswerBecomesAPreviewOnlyWhenItHoldsThePictureAndIsTooLarge) {
    ReadBackResult rb;
    rb.data = gradient_bytes(64 * 48 * 4);
    const ReadBackRequest::Preview fits{64, 48, 4, false, 64, 48};
    ReadBackResult same = rb;
    make_preview(fits, same);
    EXPECT_EQ(same.preview_width, 0u);  // it fits: the exact bytes
    EXPECT_TRUE(same.data == rb.data);
    const ReadBackRequest::Preview larger_than_buffer{65, 48, 4, false, 16, 16};
    ReadBackResult whole = rb;
    make_preview(larger_than_buffer, whole);
    EXPECT_EQ(whole.preview_width, 0u);  // not the picture the app thinks: sent whole
    const ReadBackRequest::Preview half{64, 48, 4, false, 32, 1000};
    ReadBackResult small = rb;
    make_preview(half, small);
    EXPECT_EQ(small.preview_width, 32u);
    EXPECT_EQ(small.preview_height, 24u);
    EXPECT_EQ(small.data.size(), 32u * 24 * 4);

    // Both survive the wire.
    ReadBackRequest asked{5, false, false, half};
    auto back = decode_request(encode_request(Request{asked}));
    ASSERT_TRUE(back);
    const auto& got = std::get<ReadBackRequest>(*back);
    ASSERT_TRUE(got.preview);
    EXPECT_EQ(got.preview->max_width, 32u);
    EXPECT_EQ(got.preview->width, 64u);
    auto answer = decode_response(encode_response(Response{small}));
    ASSERT_TRUE(answer);
    EXPECT_EQ(std::get<ReadBackResult>(*answer).preview_height, 24u);
}

// The predictor's bytes are the wire format (an older app decodes a newer worker's previews): they must equal,
// byte for byte, the planes computed here the plain way (the JPEG-LS median predictor pixel by pixel, the first
// row from the left, the first column from above), on noise of 1 to 4 components whose rows are not a multiple
// of anything, and decode back to the picture.
TEST(WireCompress, ThePredictorsPlanesAreTheMedianPredictorsDifferences) {
    std::mt19937 random(7);
    for (uint32_t components = 1; components <= 4; ++components) {
        const size_t w = 37, h = 13, pixels = w * h;
        std::vector<std::byte> picture(pixels * components);
        for (auto& b : picture) b = std::byte(uint8_t(random() & 0x3f));  // noise with some repeats
        auto at = [&](size_t x, size_t y, size_t c) {
            return int(std::to_integer<uint8_t>(picture[(y * w + x) * components + c]));
        };
        std::vector<std::byte> want(picture.size());
        for (size_t c = 0; c < components; ++c)
            for (size_t y = 0; y < h; ++y)
                for (size_t x = 0; x < w; ++x) {
                    int predicted = 0;
                    if (y == 0 && x > 0)
                        predicted = at(x - 1, y, c);
                    else if (y > 0 && x == 0)
                        predicted = at(x, y - 1, c);
                    else if (y > 0) {
                        const int a = at(x - 1, y, c), b = at(x, y - 1, c), d = at(x - 1, y - 1, c);
                        predicted = d >= std::max(a, b)   ? std::min(a, b)
                                    : d <= std::min(a, b) ? std::max(a, b)
                                                          : a + b - d;
                    }
                    want[c * pixels + y * w + x] = std::byte(uint8_t(at(x, y, c) - predicted));
                }
        WireMessage m{R"({"type":"read_back"})", picture, {}};
        delta_encode_picture(m, uint32_t(w), components);
        EXPECT_TRUE(m.blob == want) << components << " components";
        ASSERT_FALSE(delta_decode_picture(m));
        EXPECT_TRUE(m.blob == picture) << components << " components";
    }
}

// zstd pays below 100 MB/s and the predictor below 50 MB/s (a preview: below the same machine's 1000 MB/s): a VPN's 5
// MB/s codes fully, a campus link's 60 MB/s with zstd alone, a pipe's or a local ssh's GB/s not at all; an unmeasured
// link codes fully. The coding is asked with a mark the worker reads, and a request without it is not mistaken for one.
TEST(WireCompress, TheLinksSpeedDecidesTheCodingAndTheRequestAsksForIt) {
    EXPECT_EQ(coding_for_link(0), AnswerCoding::Full);
    EXPECT_EQ(coding_for_link(5), AnswerCoding::Full);
    EXPECT_EQ(coding_for_link(49.9), AnswerCoding::Full);
    EXPECT_EQ(coding_for_link(50), AnswerCoding::Zstd);
    EXPECT_EQ(coding_for_link(60), AnswerCoding::Zstd);
    EXPECT_EQ(coding_for_link(99.9), AnswerCoding::Zstd);
    EXPECT_EQ(coding_for_link(100), AnswerCoding::Raw);
    EXPECT_EQ(coding_for_link(2000), AnswerCoding::Raw);
    // A preview, only shown, keeps to the network budget on every link slower than the same machine's.
    EXPECT_EQ(coding_for_link(60, true), AnswerCoding::Full);
    EXPECT_EQ(coding_for_link(125, true), AnswerCoding::Full);  // gigabit Ethernet
    EXPECT_EQ(coding_for_link(kSameMachineMBps - 1, true), AnswerCoding::Full);
    EXPECT_EQ(coding_for_link(kSameMachineMBps, true), AnswerCoding::Raw);
    WireMessage request = encode_request(Request{ReadBackRequest{7, false, false}});
    const std::string unmarked = request.json;
    EXPECT_EQ(answer_coding_asked(request), AnswerCoding::Full);
    ask_answer_coding(request, AnswerCoding::Full);
    EXPECT_EQ(request.json, unmarked) << "Full is what a worker does unasked: no mark";
    for (AnswerCoding c : {AnswerCoding::Zstd, AnswerCoding::Raw}) {
        WireMessage asked = request;
        ask_answer_coding(asked, c);
        EXPECT_EQ(answer_coding_asked(asked), c) << asked.json;
        EXPECT_TRUE(decode_request(asked)) << "the mark must not stop the request being read";
    }
    WireMessage quoted{R"({"type":"compile","source":"// answer_coding raw"})", {}, {}};
    EXPECT_EQ(answer_coding_asked(quoted), AnswerCoding::Full) << "the words inside a string are not the mark";
}

}  // namespace
}  // namespace cp
