// The kernel library on the CPU backend: every kernels/**/*.cu compiles, and the basics and image filters
// give the same results as loops written here (sizes not multiples of the block).
#include "cpu_backend_rig.h"

#include "core/cpu/source_prep.h"
#include "support/lessons.h"

#include <cmath>
#include <random>

namespace cp::test {
namespace {

struct Uchar4 {
    unsigned char x, y, z, w;
    bool operator==(const Uchar4&) const = default;
};

std::string kernel_text(const std::string& relative) { return read_file(source_dir() / "kernels" / relative); }

std::vector<Uchar4> random_image(int w, int h, unsigned seed) {
    std::vector<Uchar4> img(size_t(w * h));
    std::mt19937 rng(seed);
    for (auto& p : img) p = {uint8_t(rng()), uint8_t(rng()), uint8_t(rng()), uint8_t(rng())};
    return img;
}

// Every kernel of every lesson compiles (a lesson may hold several; `kernel:` picks one): one test per lesson.
// Its compile cache is the lessons' one (support/test_cache.h), so under ctest a kernel the lesson runs with is
// compiled once per run, by whichever test comes first, with the same request, so to the same result.
class CpuBackendLesson : public testing::TestWithParam<std::string> {};

TEST_P(CpuBackendLesson, EveryKernelCompiles) {
    CpuRig rig(test_options());
    const std::filesystem::path path = lesson_path(GetParam());
    const std::string text = read_file(path);
    const std::vector<KernelDecl> kernels = find_kernels(text);
    ASSERT_GE(kernels.size(), 1u) << path;
    for (const KernelDecl& k : kernels) {
        const CompileResult r = rig.compile_result(text, k.name, path.string());
        std::string messages;
        for (const Diagnostic& d : r.diagnostics) messages += d.str() + "\n";
        EXPECT_TRUE(r.ok) << path << " (" << k.name << ")\n" << messages;
    }
}

INSTANTIATE_TEST_SUITE_P(Library, CpuBackendLesson, testing::ValuesIn(library_lesson_names()), lesson_test_name);

// The tests above are one per kernels/**/*.cu (the walk they replace): the library has its lessons.
TEST(CpuBackendLibrary, EveryLessonHasATestOfItsOwn) {
    EXPECT_GE(library_lesson_names().size(), 4u);
}

TEST(CpuBackendLibrary, VectorAdd) {
    CpuRig rig;
    const int n = 1000003;
    std::vector<float> a(n), b(n);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-1, 1);
    for (int i = 0; i < n; ++i) {
        a[size_t(i)] = dist(rng);
        b[size_t(i)] = 0.001f * float(i);
    }
    const ModuleId m = rig.compile(kernel_text("basics/vector_add.cu"), "vector_add", "kernels/basics/vector_add.cu");
    const BufferId ba = rig.buffer("a", a), bb = rig.buffer("b", b), bc = rig.buffer("c", std::vector<float>(n, 0));
    const LaunchResult r = rig.launch(m, "vector_add", {div_up(n, 256)}, {256},
                                      {buffer_arg("a", ba), buffer_arg("b", bb), buffer_arg("c", bc), value_arg("n", n)});
    ASSERT_TRUE(r.ok) << error_text(r);
    const std::vector<float> c = rig.read<float>(bc);
    for (int i = 0; i < n; ++i) ASSERT_EQ(c[size_t(i)], a[size_t(i)] + b[size_t(i)]) << i;
}

TEST(CpuBackendLibrary, ThreadIds) {
    CpuRig rig(test_options(2, ThreadOrder::Shuffled, 8));
    const int w = 333, h = 200;
    const ModuleId m = rig.compile(kernel_text("basics/thread_ids.cu"), "thread_ids", "kernels/basics/thread_ids.cu");
    const BufferId ids = rig.buffer("ids", std::vector<int>(size_t(w * h), -1));
    const LaunchResult r = rig.launch(m, "thread_ids", {div_up(w, 16), div_up(h, 16)}, {16, 16},
                                      {buffer_arg("ids", ids), value_arg("width", w), value_arg("height", h)});
    ASSERT_TRUE(r.ok) << error_text(r);
    const std::vector<int> out = rig.read<int>(ids);
    for (int i = 0; i < w * h; ++i) ASSERT_EQ(out[size_t(i)], i);
}

TEST(CpuBackendLibrary, BoxBlurIsBitExact) {
    CpuRig rig;
    const int w = 97, h = 61;
    const std::vector<Uchar4> src = random_image(w, h, 4);
    const ModuleId m = rig.compile(kernel_text("image/box_blur.cu"), "box_blur", "kernels/image/box_blur.cu");
    const BufferId bs = rig.buffer("src", src), bd = rig.buffer("dst", std::vector<Uchar4>(size_t(w * h)));
    const LaunchResult r = rig.launch(m, "box_blur", {div_up(w, 16), div_up(h, 16)}, {16, 16},
                                      {buffer_arg("src", bs), buffer_arg("dst", bd), value_arg("width", w), value_arg("height", h)});
    ASSERT_TRUE(r.ok) << error_text(r);
    const std::vector<Uchar4> dst = rig.read<Uchar4>(bd);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            int sum[4] = {0, 0, 0, 0};
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    const Uchar4 p = src[size_t(std::clamp(y + dy, 0, h - 1) * w + std::clamp(x + dx, 0, w - 1))];
                    sum[0] += p.x, sum[1] += p.y, sum[2] += p.z, sum[3] += p.w;
                }
            const Uchar4 expect{uint8_t((sum[0] + 4) / 9), uint8_t((sum[1] + 4) / 9), uint8_t((sum[2] + 4) / 9),
                                uint8_t((sum[3] + 4) / 9)};
            ASSERT_EQ(dst[size_t(y * w + x)], expect) << x << "," << y;
        }
}

TEST(CpuBackendLibrary, GrayscaleIsBitExactWithoutFma) {
    CpuRig rig;
    const int w = 131, h = 77;
    const std::vector<Uchar4> src = random_image(w, h, 9);
    const ModuleId m = rig.compile(kernel_text("image/grayscale.cu"), "grayscale", "kernels/image/grayscale.cu");
    const BufferId bs = rig.buffer("src", src), bd = rig.buffer("dst", std::vector<Uchar4>(size_t(w * h)));
    const LaunchResult r = rig.launch(m, "grayscale", {div_up(w, 16), div_up(h, 16)}, {16, 16},
                                      {buffer_arg("src", bs), buffer_arg("dst", bd), value_arg("width", w), value_arg("height", h)});
    ASSERT_TRUE(r.ok) << error_text(r);
    const std::vector<Uchar4> dst = rig.read<Uchar4>(bd);
    for (int i = 0; i < w * h; ++i) {
        const Uchar4 p = src[size_t(i)];
        // The same float expression, evaluated without fused multiply-add (-ffp-contract=off on both sides).
        volatile float r0 = 0.299f * float(p.x), g0 = 0.587f * float(p.y), b0 = 0.114f * float(p.z);
        const float luma = (r0 + g0) + b0;
        const auto g = static_cast<unsigned char>(std::fmin(luma + 0.5f, 255.0f));
        ASSERT_EQ(dst[size_t(i)], (Uchar4{g, g, g, p.w})) << i;
    }
}

}  // namespace
}  // namespace cp::test
