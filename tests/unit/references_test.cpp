// The library's in-file CPU references, run as the app runs them (compiled from the file's reference section,
// called in the sandbox) against small cases worked out by hand or by a different formulation; and the
// buffer comparison used to verify kernels. Finding and checking references: file_reference_test.cpp.
#include "core/kernel_file/expr.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/file_reference.h"
#include "core/session/output_compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>

namespace cp {
namespace {

template <class T>
HostBuffer buffer(const std::string& name, ElemType type, const std::vector<T>& values) {
    HostBuffer b;
    b.name = name;
    b.type = type;
    b.bytes.resize(values.size() * sizeof(T));
    std::memcpy(b.bytes.data(), values.data(), b.bytes.size());
    return b;
}

template <class T>
std::vector<T> values(const HostBuffer& b) {
    return std::vector<T>(b.as<T>(), b.as<T>() + b.bytes.size() / sizeof(T));
}

struct ReferenceInputs {
    std::map<std::string, double> params;
    std::map<std::string, HostBuffer> buffers;  // inputs; outputs not given start as zeros
};

// Runs the reference of library file `relative` on `in`; outputs the test does not give are zero-filled.
std::map<std::string, HostBuffer> run(const std::string& relative, ReferenceInputs in) {
    auto file = load_kernel_file(kernels_dir() / relative);
    EXPECT_TRUE(file.ok());
    if (!file.ok()) return {};
    EXPECT_TRUE(file->usable()) << relative;
    EXPECT_TRUE(file->reference_fn.has_value()) << relative;
    std::map<std::string, const HostBuffer*> initial;
    for (const auto& b : file->spec.buffers) {
        if (!in.buffers.count(b.name)) {  // an output: zeros, as many as the header's count says
            auto count = eval_expr(b.count_expr, in.params);
            EXPECT_TRUE(count.ok()) << b.count_expr;
            const size_t n = count.ok() ? size_t(*count) : 0;
            in.buffers[b.name] = HostBuffer{b.name, b.type, std::vector<std::byte>(n * elem_info(b.type).size)};
        }
        initial[b.name] = &in.buffers.at(b.name);
    }
    static FileReference reference;  // one sandboxed worker for the whole suite
    ReferenceOutcome out = reference.compute(*file, in.params, initial);
    EXPECT_FALSE(out.error) << out.error->full();
    return out.expected;
}

TEST(LibraryReferences, VectorAdd) {
    ReferenceInputs in;
    in.params["n"] = 3;
    in.buffers["a"] = buffer<float>("a", ElemType::Float, {1.0f, 2.5f, -3.0f});
    in.buffers["b"] = buffer<float>("b", ElemType::Float, {0.5f, 0.5f, 0.25f});
    in.buffers["c"] = buffer<float>("c", ElemType::Float, {9, 9, 9});
    const auto out = run("basics/vector_add.cu", in);
    ASSERT_EQ(out.count("c"), 1u);
    EXPECT_EQ(values<float>(out.at("c")), (std::vector<float>{1.5f, 3.0f, -2.75f}));
}

TEST(LibraryReferences, SumWrapsLikeInt32Atomics) {
    ReferenceInputs in;
    in.params["n"] = 4;
    in.buffers["input"] = buffer<int32_t>("input", ElemType::Int, {5, -2, 7, 1});
    EXPECT_EQ(values<int32_t>(run("reduction/shared_memory_sum.cu", in).at("total")), (std::vector<int32_t>{11}));
    // 2^31 - 1 + 1 wraps to -2^31, as repeated atomicAdd on an int does.
    in.params["n"] = 2;
    in.buffers["input"] = buffer<int32_t>("input", ElemType::Int, {2147483647, 1});
    EXPECT_EQ(values<int32_t>(run("reduction/shared_memory_sum.cu", in).at("total")), (std::vector<int32_t>{-2147483647 - 1}));
}

TEST(LibraryReferences, Histogram256CountsEachValue) {
    ReferenceInputs in;
    in.params["width"] = 3;
    in.params["height"] = 2;
    in.buffers["src"] = buffer<uint8_t>("src", ElemType::UChar, {0, 255, 7, 7, 7, 0});
    const auto bins = values<uint32_t>(run("histogram/atomic_histogram.cu", in).at("bins"));
    ASSERT_EQ(bins.size(), 256u);
    EXPECT_EQ(bins[0], 2u);
    EXPECT_EQ(bins[7], 3u);
    EXPECT_EQ(bins[255], 1u);
    EXPECT_EQ(std::accumulate(bins.begin(), bins.end(), 0u), 6u);
}

TEST(LibraryReferences, MatmulByHand) {
    // [1 2 3]   [1 0]   [ 1*1+2*2+3*0  1*0+2*1+3*(-1) ]   [ 5 -1]
    // [4 5 6] x [2 1] = [ 4*1+5*2+6*0  4*0+5*1+6*(-1) ] = [14 -1]
    //           [0 -1]
    ReferenceInputs in;
    in.params["m"] = 2;
    in.params["n"] = 2;
    in.params["k"] = 3;
    in.buffers["a"] = buffer<float>("a", ElemType::Float, {1, 2, 3, 4, 5, 6});
    in.buffers["b"] = buffer<float>("b", ElemType::Float, {1, 0, 2, 1, 0, -1});
    EXPECT_EQ(values<float>(run("matrix/tiled_matmul.cu", in).at("c")), (std::vector<float>{5, -1, 14, -1}));
}

TEST(LibraryReferences, ThreadIds) {
    ReferenceInputs in;
    in.params["width"] = 3;
    in.params["height"] = 2;
    const auto out = run("basics/thread_ids.cu", in);
    EXPECT_EQ(values<int32_t>(out.at("ids")), (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
    EXPECT_EQ(out.at("ids").type, ElemType::Int);
}

TEST(LibraryReferences, GrayscaleBt601ByHand) {
    ReferenceInputs in;
    in.params["width"] = 5;
    in.params["height"] = 1;
    in.buffers["src"] = buffer<uint8_t>("src", ElemType::UChar4,
                                        {255, 0, 0, 7, 0, 255, 0, 1, 0, 0, 255, 200, 10, 20, 30, 255, 255, 255, 255, 9});
    const auto out = run("image/grayscale.cu", in);
    // 0.299*255 = 76.245; 0.587*255 = 149.685; 0.114*255 = 29.07; 2.99+11.74+3.42 = 18.15; 255. Alpha kept.
    EXPECT_EQ(values<uint8_t>(out.at("dst")), (std::vector<uint8_t>{76, 76, 76, 7, 150, 150, 150, 1, 29, 29, 29, 200,
                                                                    18, 18, 18, 255, 255, 255, 255, 9}));
}

TEST(LibraryReferences, BoxBlurSinglePixelByHand) {
    // One pixel of 90 in the corner of a 5x3 image, zeros elsewhere. With clamped borders the corner
    // sample is seen 4 times from (0,0), twice from (1,0) and (0,1), once from (1,1).
    std::vector<uint8_t> src(5 * 3 * 4, 0);
    src[0] = 90;
    ReferenceInputs in;
    in.params["width"] = 5;
    in.params["height"] = 3;
    in.buffers["src"] = buffer<uint8_t>("src", ElemType::UChar4, src);
    const auto dst = values<uint8_t>(run("image/box_blur.cu", in).at("dst"));
    auto red = [&](int x, int y) { return int(dst[(y * 5 + x) * 4]); };
    EXPECT_EQ(red(0, 0), 40);  // 360 / 9
    EXPECT_EQ(red(1, 0), 20);  // 180 / 9
    EXPECT_EQ(red(0, 1), 20);
    EXPECT_EQ(red(1, 1), 10);  // 90 / 9
    EXPECT_EQ(red(2, 0), 0);
    EXPECT_EQ(red(0, 2), 0);
    EXPECT_EQ(red(4, 2), 0);
    for (size_t i = 1; i < dst.size(); ++i) {
        if (i % 4 != 0) {
            EXPECT_EQ(dst[i], 0) << i;
        }
    }
}

TEST(LibraryReferences, BoxBlurMatchesPaddedImageFormulation) {
    // A different formulation: copy the image into a 7x5 array padded by repeating the edges, then
    // sum plain 3x3 windows and round with integer arithmetic (2*sum + 9) / 18.
    const int w = 5, h = 3;
    std::vector<uint8_t> src(w * h * 4);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            uint8_t* p = &src[(y * w + x) * 4];
            p[0] = static_cast<uint8_t>((x * 37 + y * 11) % 256);
            p[1] = static_cast<uint8_t>(x * y * 20);
            p[2] = static_cast<uint8_t>(255 - x * 10);
            p[3] = static_cast<uint8_t>(200 + y * 17);
        }
    int padded[h + 2][w + 2][4];
    for (int py = 0; py < h + 2; ++py)
        for (int px = 0; px < w + 2; ++px) {
            const int sx = px == 0 ? 0 : px == w + 1 ? w - 1 : px - 1;
            const int sy = py == 0 ? 0 : py == h + 1 ? h - 1 : py - 1;
            for (int c = 0; c < 4; ++c) padded[py][px][c] = src[(sy * w + sx) * 4 + c];
        }
    std::vector<uint8_t> want(w * h * 4);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < 4; ++c) {
                int sum = 0;
                for (int j = 0; j < 3; ++j)
                    for (int i = 0; i < 3; ++i) sum += padded[y + j][x + i][c];
                want[(y * w + x) * 4 + c] = static_cast<uint8_t>((2 * sum + 9) / 18);
            }
    ReferenceInputs in;
    in.params["width"] = w;
    in.params["height"] = h;
    in.buffers["src"] = buffer<uint8_t>("src", ElemType::UChar4, src);
    EXPECT_EQ(values<uint8_t>(run("image/box_blur.cu", in).at("dst")), want);
}

TEST(CompareBuffers, EqualAndWithinTolerance) {
    const HostBuffer a = buffer<float>("c", ElemType::Float, {1.0f, 2.0f, 3.0f});
    EXPECT_TRUE(compare_buffers(a, a, 0).ok);
    const HostBuffer b = buffer<float>("c", ElemType::Float, {1.0f, 2.0000005f, 3.0f});
    const Comparison cmp = compare_buffers(b, a, 1e-6);
    EXPECT_TRUE(cmp.ok);
    EXPECT_EQ(cmp.mismatches, 0u);
    EXPECT_NEAR(cmp.max_abs_error, 4.76837158e-7, 1e-12);  // one float ulp at 2
    EXPECT_EQ(cmp.detail, "");
}

TEST(CompareBuffers, Uchar4MismatchDetail) {
    const HostBuffer expected = buffer<uint8_t>("dst", ElemType::UChar4, {1, 2, 3, 4, 1, 2, 3, 4, 5, 6, 7, 8});
    const HostBuffer actual = buffer<uint8_t>("dst", ElemType::UChar4, {1, 2, 3, 4, 1, 2, 3, 6, 9, 6, 7, 8});
    const Comparison cmp = compare_buffers(actual, expected, 1);
    EXPECT_FALSE(cmp.ok);
    EXPECT_EQ(cmp.mismatches, 2u);  // the 6 vs 4 and the 9 vs 5 components
    EXPECT_EQ(cmp.first_mismatch, 1u);
    EXPECT_EQ(cmp.max_abs_error, 4.0);
    EXPECT_EQ(cmp.detail, "dst[1] = (1,2,3,6), expected (1,2,3,4)");
}

TEST(CompareBuffers, ScalarDetailNanAndSizes) {
    const HostBuffer expected = buffer<int32_t>("ids", ElemType::Int, {0, 1, 2, 3});
    const HostBuffer actual = buffer<int32_t>("ids", ElemType::Int, {0, 1, -1, 3});
    const Comparison cmp = compare_buffers(actual, expected, 0);
    EXPECT_FALSE(cmp.ok);
    EXPECT_EQ(cmp.detail, "ids[2] = -1, expected 2");

    const HostBuffer nan = buffer<float>("c", ElemType::Float, {NAN});
    const HostBuffer one = buffer<float>("c", ElemType::Float, {1.0f});
    EXPECT_FALSE(compare_buffers(nan, one, 1e9).ok);
    EXPECT_TRUE(compare_buffers(nan, nan, 0).ok);

    const HostBuffer shorter = buffer<int32_t>("ids", ElemType::Int, {0, 1, 2});
    const Comparison size = compare_buffers(shorter, expected, 0);
    EXPECT_FALSE(size.ok);
    EXPECT_NE(size.detail.find("has 3 elements, the reference 4"), std::string::npos) << size.detail;
    const Comparison type = compare_buffers(buffer<float>("ids", ElemType::Float, {0, 1, 2, 3}), expected, 0);
    EXPECT_FALSE(type.ok);
    EXPECT_NE(type.detail.find("holds float but the reference gives int"), std::string::npos) << type.detail;
}

}  // namespace
}  // namespace cp
