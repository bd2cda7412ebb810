// The window's Sanitize on the GPU (issue 10 item 3, issue 11 item 5): the one-past-the-end lesson opened
// headless with --sanitize memcheck has the write's line marked in the editor, the finding naming the
// thread, block, buffer and element. Skips without a CUDA device or without compute-sanitizer.
#include "gpu/gpu_test_support.h"
#include "support/process.h"

#include <filesystem>
#include <fstream>
#include "test_paths.h"

namespace cp::gpu_test {
namespace {

TEST(SanitizeWindow, HeadlessMemcheckMarksTheOnePastTheEndLine) {
    if (auto why = cuda_unavailable()) GTEST_SKIP() << "no CUDA device: " << *why;
    cp::test::TempDir dir;
    const auto file = dir.path() / "oob_write.cu";
    // Line 12 writes one element past the end of `out` (the header is lines 1-8).
    std::ofstream(file) << "/*@playground\ntitle: One past the end\nparam n: int = 1000\n"
                           "buffer in: float[n] in ramp(start=0, step=1)\nbuffer out: float[n] out zeros\n"
                           "block: 256\ngrid: ceil(n / block.x)\n*/\n"
                           "extern \"C\" __global__ void shift(const float* in, float* out, int n)\n{\n"
                           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                           "    if (i < n) out[i + 1] = in[i];\n}\n";
    const auto shot = dir.path() / "sanitized.png";
    auto r = cp::test::run_process({CP_BINARY, "--headless", "--backend", "cuda", "--open", file.string(), "--sanitize",
                                    "memcheck", "--size", "1920x1080", "--screenshot", shot.string()},
                                   {"CUDA_PLAYGROUND_USER_DIR=" + (dir.path() / "user").string()});
    if (r.err.find("compute-sanitizer was not found") != std::string::npos) GTEST_SKIP() << r.err;
    std::printf("%s%s\n", r.out.c_str(), r.err.c_str());
    EXPECT_EQ(r.exit_code, 2) << "findings exit 2";
    EXPECT_NE(r.out.find("sanitize memcheck: 1 finding"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("by thread (231,0,0) in block (3,0,0), outside `out` (element 1000 of 1000) at oob_write.cu:12"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("marked line 12"), std::string::npos) << r.out;
    EXPECT_TRUE(std::filesystem::exists(shot));
}

}  // namespace
}  // namespace cp::gpu_test
