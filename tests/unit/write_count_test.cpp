// Elements written more than once, counted by the write-counting variant on the real CPU backend: two threads
// storing one element (count computed independently), a correct kernel (none), a histogram's atomics and atomics on the pointer (none),
// whole pixels stored twice, a channel stored alone (not measured), a kernel the variant cannot compile ("not measured", with the reason),
// and the variant compiling with NVRTC (no GPU needed).
#include "core/toolkit/nvrtc_compiler.h"
#include "core/engine/backend.h"
#include "core/engine/count_wrapper.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/coverage.h"
#include "core/session/session.h"

#include "cpu_session.h"
#include "core/backends/registry.h"
#include "support/lessons.h"
#include "support/test_cache.h"
#include "support/scoped_env.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <utility>

using namespace cp;

namespace {

// Thread i stores element i / 2: both threads of a pair write it; the grid covers n threads, n odd.
constexpr const char* kHalf = R"(/*@playground
title: Half
param n: int = 1001
buffer out: float[n] out zeros
block: 128
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

constexpr const char* kCorrect = R"(/*@playground
title: Correct
param n: int = 1001
buffer out: float[n] out zeros
block: 128
grid: ceil(n / block.x)
problem: n
*/
extern "C" __global__ void correct(float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float* unused = 0;
    (void)unused;
    if (i < n) {
        out[i] = 0.0f;   // one thread storing an element twice is one writer
        out[i] += 2.0f * i;
    }
}
)";

constexpr const char* kHistogram = R"(/*@playground
title: Histogram
param n: int = 5000
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

// Atomics on the output pointer itself and on `out + i`: no double writes either.
constexpr const char* kTotals = R"(/*@playground
title: Totals
param n: int = 3001
buffer totals: uint[2] out zeros
block: 64
grid: ceil(n / block.x)
problem: n
*/
extern "C" __global__ void totals(unsigned int* totals, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(totals, 1u);
        atomicAdd(totals + 1, 2u);
    }
}
)";

// uchar4 pixels: thread x stores pixel x whole and, for x >= 11, pixel x - 1 again (a colour per element, so
// the count is per element as the never-written count is, whatever the channels).
constexpr const char* kPixels = R"(/*@playground
title: Pixels
param width: int = 45
buffer img: uchar4[width] out zeros
block: 32
grid: ceil(width / block.x)
problem: width
*/
extern "C" __global__ void pixels(uchar4* img, int width)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < width) {
        img[x] = make_uchar4(200, 100, 50, 255);
        if (x >= 11) img[x - 1] = make_uchar4(1, 2, 3, 255);
    }
}
)";

// A channel stored through the element (`img[x].y = ...`): the proxy has no members, so the variant does not
// compile and nothing is counted.
constexpr const char* kMember = R"(/*@playground
title: Member
param width: int = 45
buffer img: uchar4[width] out zeros
block: 32
grid: ceil(width / block.x)
problem: width
*/
extern "C" __global__ void member(uchar4* img, int width)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < width) img[x].y = 9;
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

using test::CpuRun;

RunReport run_counted(const std::string& source, const std::string& name) {
    CpuRun r = test::open_on_cpu(source, name);
    RunOptions o;
    o.timing = {0, 1, false};
    o.coverage = true;
    return r.session->run(o);
}

TEST(WriteCount, TwoThreadsStoringOneElementAreCountedExactly) {
    const RunReport report = run_counted(kHalf, "half.cu");
    ASSERT_TRUE(report.ok()) << report.error->full();
    ASSERT_EQ(report.coverage.size(), 1u);
    const CoverageMap& c = report.coverage[0];
    ASSERT_TRUE(c.writers_counted) << c.writers_not_measured;
    // Independently: threads 0..n-1 store element i / 2.
    const int n = 1001;
    std::vector<uint32_t> expected(n, 0);
    for (int i = 0; i < n; ++i) ++expected[i / 2];
    uint64_t more = 0;
    for (uint32_t w : expected) more += w > 1;
    EXPECT_EQ(more, 500u);
    EXPECT_EQ(c.written_more_than_once, more);
    EXPECT_EQ(c.max_writers, 2u);
    EXPECT_EQ(c.writers, expected);
    EXPECT_EQ(c.never_written, uint64_t(n - (n + 1) / 2));
    EXPECT_EQ(c.writers_summary(), "500 elements written by more than one thread (up to 2)");
    bool warned = false;
    for (const auto& i : report.launch_issues)
        warned = warned || (i.limit == std::string(kWrittenTwiceLimit) &&
                            i.message.find("500 elements written by more than one thread") != std::string::npos);
    EXPECT_TRUE(warned);
    // Consistent with the sentinels: never written exactly where no thread was counted.
    for (int i = 0; i < n; ++i) EXPECT_EQ(c.unwritten[i] != 0, c.writers[i] == 0) << i;
}

TEST(WriteCount, ACorrectKernelHasNoElementWrittenTwice) {
    const RunReport report = run_counted(kCorrect, "correct.cu");
    ASSERT_TRUE(report.ok()) << report.error->full();
    ASSERT_EQ(report.coverage.size(), 1u);
    const CoverageMap& c = report.coverage[0];
    ASSERT_TRUE(c.writers_counted) << c.writers_not_measured;
    EXPECT_EQ(c.written_more_than_once, 0u);
    EXPECT_EQ(c.max_writers, 1u);
    EXPECT_EQ(c.never_written, 0u);
    EXPECT_EQ(c.writers, std::vector<uint32_t>(1001, 1u));
    EXPECT_EQ(c.writers_summary(), "no element written by more than one thread");
    // The run's own output is the kernel's, not the counting launch's.
    EXPECT_TRUE(report.verified.value_or(true));
}

TEST(WriteCount, HistogramAtomicsAreNoDoubleWrites) {
    const RunReport report = run_counted(kHistogram, "histogram.cu");
    ASSERT_TRUE(report.ok()) << report.error->full();
    const CoverageMap* c = nullptr;
    for (const auto& m : report.coverage)
        if (m.buffer == "hist") c = &m;
    ASSERT_NE(c, nullptr);
    ASSERT_TRUE(c->writers_counted) << c->writers_not_measured;
    EXPECT_EQ(c->written_more_than_once, 0u);
    EXPECT_EQ(c->never_written, 0u);
    // The atomics still counted: the bins add up to n.
    const auto& hist = report.outputs.at("hist");
    uint64_t total = 0;
    for (size_t i = 0; i + 4 <= hist.bytes.size(); i += 4) {
        uint32_t v;
        std::memcpy(&v, hist.bytes.data() + i, 4);
        total += v;
    }
    EXPECT_EQ(total, 5000u);
}

TEST(WriteCount, AtomicsThroughTheOutputPointerAreNoDoubleWrites) {
    const RunReport report = run_counted(kTotals, "totals.cu");
    ASSERT_TRUE(report.ok()) << report.error->full();
    ASSERT_EQ(report.coverage.size(), 1u);
    const CoverageMap& c = report.coverage[0];
    ASSERT_TRUE(c.writers_counted) << c.writers_not_measured;
    EXPECT_EQ(c.written_more_than_once, 0u);
    const auto& out = report.outputs.at("totals");
    uint32_t v[2];
    std::memcpy(v, out.bytes.data(), 8);
    EXPECT_EQ(v[0], 3001u);
    EXPECT_EQ(v[1], 6002u);
}

TEST(WriteCount, PixelsAreCountedPerElement) {
    const RunReport report = run_counted(kPixels, "pixels.cu");
    ASSERT_TRUE(report.ok()) << report.error->full();
    ASSERT_EQ(report.coverage.size(), 1u);
    const CoverageMap& c = report.coverage[0];
    ASSERT_TRUE(c.writers_counted) << c.writers_not_measured;
    ASSERT_EQ(c.writers.size(), 45u);
    // Independently: pixel x is stored by thread x and, for x in [10, 44), by thread x + 1.
    uint64_t more = 0;
    for (int x = 0; x < 45; ++x) {
        const uint32_t want = (x >= 10 && x + 1 < 45) ? 2u : 1u;
        EXPECT_EQ(c.writers[x], want) << x;
        more += want > 1;
    }
    EXPECT_EQ(c.written_more_than_once, more);
    EXPECT_EQ(c.never_written, 0u);

    const RunReport member = run_counted(kMember, "member.cu");
    ASSERT_TRUE(member.ok()) << member.error->full();
    ASSERT_EQ(member.coverage.size(), 1u);
    EXPECT_FALSE(member.coverage[0].writers_counted);
    EXPECT_NE(member.coverage[0].writers_not_measured.find("member.cu:12"), std::string::npos)
        << member.coverage[0].writers_not_measured;
}

TEST(WriteCount, AKernelTheVariantCannotCompileIsNotMeasuredWithTheReason) {
    const RunReport report = run_counted(kCast, "cast.cu");
    ASSERT_TRUE(report.ok()) << report.error->full();
    ASSERT_EQ(report.coverage.size(), 1u);
    const CoverageMap& c = report.coverage[0];
    EXPECT_FALSE(c.writers_counted);
    EXPECT_TRUE(c.writers.empty());
    EXPECT_EQ(c.written_more_than_once, 0u);
    EXPECT_NE(c.writers_not_measured.find("does not compile"), std::string::npos) << c.writers_not_measured;
    EXPECT_NE(c.writers_not_measured.find("cast.cu:13"), std::string::npos) << c.writers_not_measured;
    EXPECT_EQ(c.writers_summary().rfind("written-more-than-once not measured: ", 0), 0u) << c.writers_summary();
    // The sentinel measurement and the run are unaffected.
    EXPECT_EQ(c.never_written, 0u);
    EXPECT_TRUE(report.verified.value_or(true));
}

TEST(WriteCount, OutputsNotDeclaredAsPointersAreRefusedWithTheReason) {
    const std::string source = "extern \"C\" __global__ void k(float out[], int n) { out[0] = n; }\n";
    auto wrapped = make_count_wrapper(source, "k", {{"out", 4, 10}});
    ASSERT_FALSE(wrapped.ok());
    EXPECT_NE(wrapped.error().message.find("`out`"), std::string::npos) << wrapped.error().message;
    auto missing = make_count_wrapper(source, "other", {{"out", 4, 10}});
    EXPECT_FALSE(missing.ok());
}

TEST(WriteCount, TheVariantCompilesWithNvrtcAndKeepsLineNumbers) {
    for (const char* src : {kHalf, kCorrect, kHistogram, kTotals, kPixels}) {
        KernelFile file = parse_kernel_source(src, "k.cu");
        ASSERT_TRUE(file.signature.has_value());
        std::vector<CountedBuffer> counted;
        for (const auto& b : file.spec.buffers)
            if (b.direction != Direction::In) counted.push_back({b.name, elem_info(b.type).component_size, 100});
        auto wrapped = make_count_wrapper(file.source, file.signature->name, counted);
        ASSERT_TRUE(wrapped.ok()) << wrapped.error().message;
        CompileRequest request;
        request.source = *wrapped;
        request.path = "k.cu";
        request.kernel_name = file.signature->launch_name;
        request.load = false;
        std::vector<std::byte> cubin;
        const CompileResult compiled = compile_with_nvrtc(request, kArchWithoutDevice, &cubin);
        EXPECT_TRUE(compiled.ok) << compiled.log;
    }
    // A compile error in the user's code names the user's line.
    KernelFile file = parse_kernel_source(kCast, "k.cu");
    auto wrapped = make_count_wrapper(file.source, "cast4", {{"out", 4, 1000}});
    ASSERT_TRUE(wrapped.ok());
    CompileRequest request;
    request.source = *wrapped;
    request.path = "k.cu";
    request.kernel_name = "cast4";
    request.load = false;
    std::vector<std::byte> cubin;
    const CompileResult compiled = compile_with_nvrtc(request, kArchWithoutDevice, &cubin);
    ASSERT_FALSE(compiled.ok);
    bool line13 = false;
    for (const auto& d : compiled.diagnostics) line13 = line13 || (d.severity == Severity::Error && d.line == 13);
    EXPECT_TRUE(line13) << compiled.log;
}

}  // namespace

namespace {

// The lessons' outputs whose counting variant does not compile (the output is cast, or handed on as a plain
// pointer): they may be "not measured", with the reason. Every other output of the library is counted. (As one
// walk over the library, this test asked for more than 20 counted outputs in all; each lesson now answers for
// its own outputs, which asks more: 37 of the 40 today.)
const std::set<std::pair<std::string, std::string>> kNotCountable = {
    {"image/box_blur_wide", "dst"}, {"image/grayscale_fast", "dst"}, {"matrix/matmul_register_blocked", "c"}};

// The lessons the tests below are made for are those scan_library finds (the walk they replace), none left out.
TEST(WriteCount, EveryLibraryLessonHasATestOfItsOwn) {
    std::vector<std::string> scanned;
    for (const KernelFile& file : scan_library(kernels_dir()))
        scanned.push_back(file.path.lexically_relative(kernels_dir()).replace_extension().generic_string());
    std::sort(scanned.begin(), scanned.end());
    EXPECT_EQ(scanned, test::library_lesson_names());
    EXPECT_GE(scanned.size(), 30u);
}

// Every library lesson runs with coverage on the CPU backend as it does without (files with steps are refused
// coverage, so they are skipped); each output is either counted, with no element written twice (the lessons are
// correct, and the buggy-on-purpose ones have other bugs), or says why it is not. One test per lesson.
class WriteCountLesson : public testing::TestWithParam<std::string> {};

TEST_P(WriteCountLesson, RunsWithCoverage) {
    // The lessons' compile cache, shared with the other tests that compile them (under ctest the kernel and the
    // reference are often compiled already; only the counting variant is this test's own).
    const test::ScopedEnv cache("CUDA_PLAYGROUND_CACHE_DIR", test::lessons_cache_dir().path().string());
    const std::string lesson = GetParam();
    auto loaded = load_kernel_file(kernels_dir() / (lesson + ".cu"));
    ASSERT_TRUE(loaded.ok()) << loaded.error().full();
    const KernelFile& file = *loaded;
    if (!file.spec.steps.empty()) GTEST_SKIP() << lesson << " has steps: a run with coverage is refused";
    auto made = make_backend("cpu");
    ASSERT_TRUE(made.ok()) << made.error().full();
    Engine engine(std::move(made->backend));
    KernelSession session(engine);
    session.set_kernel(file);
    RunOptions o;
    o.timing = {0, 1, false};
    o.coverage = true;
    const RunReport report = session.run(o);
    if (file.spec.expect == ExpectedOutcome::None) {
        ASSERT_TRUE(report.ok()) << file.path << ": " << report.error->full();
    } else {
        EXPECT_TRUE(report.as_expected.value_or(false)) << file.path << ": " << report.outcome;
    }
    for (const CoverageMap& c : report.coverage) {
        EXPECT_NE(c.writers_counted, !c.writers_not_measured.empty()) << file.path << " " << c.buffer;
        if (c.writers_counted) {
            EXPECT_EQ(c.written_more_than_once, 0u) << file.path << " " << c.buffer;
            EXPECT_EQ(c.writers.size(), c.elements) << file.path << " " << c.buffer;
        } else {
            EXPECT_TRUE(kNotCountable.count({lesson, c.buffer}))
                << c.buffer << " is not counted: " << c.writers_not_measured;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Library, WriteCountLesson, testing::ValuesIn(test::library_lesson_names()),
                         test::lesson_test_name);

}  // namespace
