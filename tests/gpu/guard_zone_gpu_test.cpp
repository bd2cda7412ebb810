// Guard zones on the GPU (issue 10): a write one element past the end, or before the start, of a buffer is
// reported with the buffer and element, without a sanitizer; a kernel that stays in bounds is not; and
// `run --sanitize memcheck` reports the same write with thread, block, buffer, element and line.
#include "gpu/gpu_test_support.h"
#include "support/process.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include "test_paths.h"

namespace cp::gpu_test {
namespace {

const char* kOnePastTheEnd = R"(extern "C" __global__ void shift(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i + 1] = in[i];
}
)";

const char* kBeforeTheStart = R"(extern "C" __global__ void shift_back(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i - 1] = in[i];
}
)";

LaunchRequest shift_launch(ModuleId m, const char* name, BufferId in, BufferId out, int n) {
    LaunchRequest l;
    l.module = m;
    l.kernel_name = name;
    l.block = {256, 1, 1};
    l.grid = {uint32_t((n + 255) / 256), 1, 1};
    l.args = {buffer("in", in), buffer("out", out), scalar("n", n)};
    return l;
}

TEST_F(CudaBackendTest, OnePastTheEndWriteIsReportedWithBufferAndElement) {
    const int n = 1000;
    const ModuleId m = compile(kOnePastTheEnd, "shift");
    const BufferId in = allocate_elements("in", n, 4), out = allocate_elements("out", n, 4);
    const LaunchResult r = engine_->launch(shift_launch(m, "shift", in, out, n));
    ASSERT_FALSE(r.ok) << "the write past the end went unnoticed";
    ASSERT_TRUE(r.error);
    EXPECT_NE(r.error->message.find("a thread wrote past the end of `out` (element 1000 of 1000)"), std::string::npos)
        << r.error->message;
    EXPECT_FALSE(r.error->context_was_reset);
    std::printf("reported: %s\n", r.error->message.c_str());
    // The zones were restored: an in-bounds kernel on the same buffers passes, with right results.
    const ModuleId add = compile(kVectorAdd, "vector_add");
    LaunchRequest ok;
    ok.module = add;
    ok.kernel_name = "vector_add";
    ok.block = {128, 1, 1};
    ok.grid = {(n + 127) / 128, 1, 1};
    ok.args = {buffer("a", in), buffer("b", in), buffer("c", out), scalar("n", n)};
    const LaunchResult again = engine_->launch(ok);
    EXPECT_TRUE(again.ok) << (again.error ? again.error->message : "");
}

TEST_F(CudaBackendTest, BeforeTheStartWriteIsReported) {
    const int n = 777;
    const ModuleId m = compile(kBeforeTheStart, "shift_back");
    const BufferId in = allocate_elements("in", n, 4), out = allocate_elements("out", n, 4);
    const LaunchResult r = engine_->launch(shift_launch(m, "shift_back", in, out, n));
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.error->message.find("a thread wrote before the start of `out` (element -1"), std::string::npos)
        << r.error->message;
}

TEST_F(CudaBackendTest, InBoundsKernelsDoNotTripTheGuards) {
    const int n = 1001;  // not a multiple of the block
    const ModuleId add = compile(kVectorAdd, "vector_add");
    const BufferId a = allocate_elements("a", n, 4), b = allocate_elements("b", n, 4), c = allocate_elements("c", n, 4);
    LaunchRequest ok;
    ok.module = add;
    ok.kernel_name = "vector_add";
    ok.block = {128, 1, 1};
    ok.grid = {(n + 127) / 128, 1, 1};
    ok.args = {buffer("a", a), buffer("b", b), buffer("c", c), scalar("n", n)};
    ok.timing.repeats = 5;
    const LaunchResult r = engine_->launch(ok);
    EXPECT_TRUE(r.ok) << (r.error ? r.error->message : "");
}

// The one-past-the-end kernel as a lesson file, for the command line.
std::filesystem::path write_oob_lesson(const std::filesystem::path& dir) {
    const auto file = dir / "oob_write.cu";
    std::ofstream(file) << "/*@playground\ntitle: One past the end\nparam n: int = 1000\n"
                           "buffer in: float[n] in ramp(start=0, step=1)\nbuffer out: float[n] out zeros\n"
                           "block: 256\ngrid: ceil(n / block.x)\n*/\n"
                        << kOnePastTheEnd;
    return file;
}

TEST(GuardZonesCli, RunReportsTheWriteWithoutASanitizer) {
    if (auto why = cuda_unavailable()) GTEST_SKIP() << "no CUDA device: " << *why;
    cp::test::TempDir dir;
    const auto file = write_oob_lesson(dir.path());
    auto r = cp::test::run_process({CP_BINARY, "run", file.string(), "--backend", "cuda"}, {});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("a thread wrote past the end of `out` (element 1000 of 1000)"), std::string::npos) << r.err;
}

TEST(SanitizeCli, MemcheckGivesThreadBlockBufferElementAndLine) {
    if (auto why = cuda_unavailable()) GTEST_SKIP() << "no CUDA device: " << *why;
    cp::test::TempDir dir;
    const auto file = write_oob_lesson(dir.path());
    const auto json = dir.path() / "r.json";
    auto r = cp::test::run_process({CP_BINARY, "run", file.string(), "--backend", "cuda", "--sanitize", "memcheck",
                                    "--repeat", "1", "--json", json.string()},
                                   {});
    if (r.err.find("compute-sanitizer was not found") != std::string::npos) GTEST_SKIP() << r.err;
    std::printf("%s%s\n", r.out.c_str(), r.err.c_str());
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.out.find("outside `out` (element 1000 of 1000) at oob_write.cu:12"), std::string::npos) << r.out;
    const auto j = nlohmann::json::parse(std::ifstream(json));
    ASSERT_TRUE(j.contains("sanitizer"));
    const auto& findings = j["sanitizer"]["findings"];
    ASSERT_FALSE(findings.empty());
    EXPECT_EQ(findings[0]["buffer"], "out");
    EXPECT_EQ(findings[0]["element"], 1000);
    EXPECT_EQ(findings[0]["line"], 12);
    EXPECT_EQ(findings[0]["thread"][0], 231);  // thread 999 = block 3, thread 231
    EXPECT_EQ(findings[0]["block"][0], 3);
    // The worker's own driver calls are clean (cuFuncGetParamInfo is asked only about real parameters).
    for (const auto& f : findings) EXPECT_EQ(f["kind"].get<std::string>().find("Program hit"), std::string::npos) << f;
}

// The same run with the kernels on a "server" (`--remote env`: the worker here, through the stdio transport):
// the server's compute-sanitizer runs them and its log comes back with the same findings.
TEST(SanitizeCli, MemcheckOverRemoteGivesTheSameFindingsAsLocally) {
    if (auto why = cuda_unavailable()) GTEST_SKIP() << "no CUDA device: " << *why;
    cp::test::TempDir dir;
    const auto file = write_oob_lesson(dir.path());
    const auto json = dir.path() / "r.json";
    auto r = cp::test::run_process({CP_BINARY, "run", file.string(), "--backend", "cuda", "--sanitize", "memcheck",
                                    "--repeat", "1", "--json", json.string(), "--remote", "env"},
                                   {std::string("CUDA_PLAYGROUND_REMOTE_PROGRAM=") + CP_BINARY});
    if (r.err.find("compute-sanitizer was not found") != std::string::npos) GTEST_SKIP() << r.err;
    std::printf("%s%s\n", r.out.c_str(), r.err.c_str());
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.out.find("outside `out` (element 1000 of 1000) at oob_write.cu:12"), std::string::npos) << r.out;
    const auto j = nlohmann::json::parse(std::ifstream(json));
    EXPECT_EQ(j["where"].get<std::string>().rfind("remote: `env` -> host ", 0), 0u) << j["where"];
    ASSERT_TRUE(j.contains("sanitizer"));
    const auto& findings = j["sanitizer"]["findings"];
    ASSERT_FALSE(findings.empty());
    EXPECT_EQ(findings[0]["line"], 12);
    EXPECT_EQ(findings[0]["thread"][0], 231);
    EXPECT_EQ(findings[0]["block"][0], 3);
}

// The window's Sanitize over its link (headless, `--sanitize` prints what the window shows): the server's
// compute-sanitizer (`--remote env`: the worker here) finds the write, and the window marks its line.
TEST(SanitizeCli, TheWindowsSanitizeOverRemoteMarksTheLine) {
    if (auto why = cuda_unavailable()) GTEST_SKIP() << "no CUDA device: " << *why;
    cp::test::TempDir dir;
    const auto file = write_oob_lesson(dir.path());
    auto r = cp::test::run_process(
        {CP_BINARY, "--headless", "--open", file.string(), "--backend", "cuda", "--remote", "env", "--sanitize",
         "memcheck"},
        {std::string("CUDA_PLAYGROUND_REMOTE_PROGRAM=") + CP_BINARY,
         "XDG_CONFIG_HOME=" + (dir.path() / "config").string(), "XDG_DATA_HOME=" + (dir.path() / "data").string()});
    if (r.err.find("compute-sanitizer was not found") != std::string::npos ||
        r.out.find("compute-sanitizer was not found") != std::string::npos)
        GTEST_SKIP() << r.out << r.err;
    std::printf("%s%s\n", r.out.c_str(), r.err.c_str());
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.out.find("sanitize memcheck: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("outside `out` (element 1000 of 1000) at oob_write.cu:12"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("marked line 12"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace cp::gpu_test
