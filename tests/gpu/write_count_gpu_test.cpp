// Elements written more than once, counted on a real GPU (skips without a CUDA device): two threads storing
// one element give the independently computed count, a histogram's atomics and a correct 4K blur give none,
// a cast output is "not measured" with the reason; the counting launch's cost against the plain launch is printed.
#include "gpu_test_support.h"

#include "core/data/image_io.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/session.h"

#include <iostream>

namespace cp::gpu_test {
namespace {

constexpr const char* kHalf = R"(/*@playground
title: Half
param n: int = 1000003
buffer out: float[n] out zeros
block: 256
grid: ceil(n / block.x)
problem: n
*/
extern "C" __global__ void half_index(float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i / 2] = 1.0f + i;
}
)";

constexpr const char* kHistogram = R"(/*@playground
title: Histogram
param n: int = 1000003
param bins: int = 37
buffer data: uint[n] in random(seed=3, min=0, max=1000)
buffer hist: uint[bins] out zeros
block: 96
grid: ceil(n / block.x)
problem: n
*/
extern "C" __global__ void histogram(const unsigned int* data, unsigned int* hist, int n, int bins)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[data[i] % bins], 1u);
}
)";

constexpr const char* kCast = R"(/*@playground
title: Cast
param n: int = 1000
buffer out: float[n] out zeros
block: 64
grid: ceil(n / 4 / block.x)
problem: n / 4
*/
extern "C" __global__ void cast4(float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (4 * i < n)
        reinterpret_cast<float4*>(out)[i] = make_float4(1, 2, 3, 4);
}
)";

RunReport run_cuda(KernelFile file, const RunChoices& choices = {}) {
    auto backend = make_cuda_backend();
    EXPECT_TRUE(backend.ok()) << backend.error().message;
    Engine engine(std::move(*backend));
    KernelSession session(engine);
    session.set_kernel(std::move(file));
    session.set_choices(choices);
    RunOptions options;
    options.timing = {1, 10, false};
    options.coverage = true;
    return session.run(options);
}

KernelFile from_text(const char* source, const char* name) {
    KernelFile f = parse_kernel_source(source, name);
    EXPECT_FALSE(has_errors(f.diagnostics));
    return f;
}

TEST(CudaWriteCount, TwoThreadsStoringOneElementAreCountedExactly) {
    if (auto why = cuda_unavailable()) GTEST_SKIP() << "no CUDA device: " << *why;
    const RunReport r = run_cuda(from_text(kHalf, "half.cu"));
    ASSERT_TRUE(r.ok()) << r.error->full();
    ASSERT_EQ(r.coverage.size(), 1u);
    const CoverageMap& c = r.coverage[0];
    ASSERT_TRUE(c.writers_counted) << c.writers_not_measured;
    const uint64_t n = 1000003;
    std::vector<uint32_t> expected(n, 0);
    for (uint64_t i = 0; i < n; ++i) ++expected[i / 2];
    uint64_t more = 0;
    for (uint32_t w : expected) more += w > 1;
    EXPECT_EQ(c.written_more_than_once, more);
    EXPECT_EQ(c.max_writers, 2u);
    EXPECT_EQ(c.writers, expected);
    EXPECT_EQ(c.never_written, n - (n + 1) / 2);
    std::cout << "[gpu] half_index n=" << n << ": plain median " << r.timing.median_ms << " ms, counting launch "
              << c.counting_launch_ms << " ms\n";
}

TEST(CudaWriteCount, HistogramAtomicsAreNoDoubleWrites) {
    if (auto why = cuda_unavailable()) GTEST_SKIP() << "no CUDA device: " << *why;
    const RunReport r = run_cuda(from_text(kHistogram, "histogram.cu"));
    ASSERT_TRUE(r.ok()) << r.error->full();
    ASSERT_EQ(r.coverage.size(), 1u);
    ASSERT_TRUE(r.coverage[0].writers_counted) << r.coverage[0].writers_not_measured;
    EXPECT_EQ(r.coverage[0].written_more_than_once, 0u);
    EXPECT_EQ(r.coverage[0].never_written, 0u);
}

TEST(CudaWriteCount, ACastOutputIsNotMeasuredWithTheReason) {
    if (auto why = cuda_unavailable()) GTEST_SKIP() << "no CUDA device: " << *why;
    const RunReport r = run_cuda(from_text(kCast, "cast.cu"));
    ASSERT_TRUE(r.ok()) << r.error->full();
    ASSERT_EQ(r.coverage.size(), 1u);
    EXPECT_FALSE(r.coverage[0].writers_counted);
    EXPECT_NE(r.coverage[0].writers_not_measured.find("cast.cu:13"), std::string::npos) << r.coverage[0].writers_not_measured;
    EXPECT_TRUE(r.verified.value_or(true));
}

TEST(CudaWriteCount, A4kBlurWritesEveryPixelOnce) {
    if (auto why = cuda_unavailable()) GTEST_SKIP() << "no CUDA device: " << *why;
    auto blur = load_kernel_file(kernels_dir() / "image/box_blur.cu");
    ASSERT_TRUE(blur.ok());
    auto photo = load_image(assets_dir() / "coffee.png");
    ASSERT_TRUE(photo.ok());
    const auto path = std::filesystem::temp_directory_path() / "cp-gpu-test-uhd-count.png";
    ASSERT_TRUE(save_png(path, resize_nearest(*photo, 3840, 2160)).ok());
    RunChoices choices;
    ASSERT_TRUE(apply_set(*blur, choices, "src", path.string()).ok());
    const RunReport r = run_cuda(*blur, choices);
    ASSERT_TRUE(r.ok()) << r.error->full();
    ASSERT_FALSE(r.coverage.empty());
    for (const CoverageMap& c : r.coverage) {
        ASSERT_TRUE(c.writers_counted) << c.buffer << ": " << c.writers_not_measured;
        EXPECT_EQ(c.written_more_than_once, 0u) << c.buffer;
        EXPECT_EQ(c.never_written, 0u) << c.buffer;
        std::cout << "[gpu] 4K box blur: plain median " << r.timing.median_ms << " ms, counting launch "
                  << c.counting_launch_ms << " ms (" << c.counting_launch_ms / r.timing.median_ms << "x)\n";
    }
}

}  // namespace
}  // namespace cp::gpu_test
