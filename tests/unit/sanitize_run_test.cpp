// A sanitized run's findings on their way to the editor (core/session/sanitize.h): a recorded CUDA 13
// memcheck log read after the run names the buffer and element from the run's addresses, becomes a
// diagnostic on its line, and replaces the driver's launch failure with the finding; the run itself goes
// through a fresh backend that is gone before the log is read; and "why it cannot run" in plain words.
#include "core/kernel_file/kernel_file.h"
#include "core/session/sanitize.h"
#include "support/process.h"
#include "core/backends/registry.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace cp;

namespace {

// As compute-sanitizer 2025.x (CUDA 13.0) wrote it on the H100 for a one-past-the-end write at line 12.
std::string memcheck_log(const std::string& file, int line) {
    return "========= COMPUTE-SANITIZER\n"
           "========= Invalid __global__ write of size 4 bytes\n"
           "=========     at shift+0xe0 in " + file + ":" + std::to_string(line) + "\n"
           "=========     by thread (231,0,0) in block (3,0,0)\n"
           "=========     Access to 0x7f69fc801fa0 is out of bounds\n"
           "=========     and is 1 bytes after the nearest allocation at 0x7f69fc801000 of size 4,000 bytes\n"
           "=========\n"
           "========= Program hit CUDA_ERROR_LAUNCH_FAILED (error 719) due to \"unspecified launch failure\" on "
           "CUDA API call to cuCtxSynchronize.\n"
           "=========\n"
           "========= Target application returned an error\n"
           "========= ERROR SUMMARY: 2 errors\n";
}

const char* kShift = "/*@playground\ntitle: One past the end\nparam n: int = 1000\n"
                     "buffer in: float[n] in ramp(start=0, step=1)\nbuffer out: float[n] out zeros\n"
                     "block: 256\ngrid: ceil(n / block.x)\n*/\n"
                     "extern \"C\" __global__ void shift(const float* in, float* out, int n)\n{\n"
                     "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                     "    if (i < n) out[i + 1] = in[i];\n}\n";

}  // namespace

TEST(SanitizeRun, ARecordedLogBecomesAFindingOnItsLineWithBufferAndElement) {
    cp::test::TempDir dir;
    const KernelFile file = parse_kernel_source(kShift, dir.path() / "oob.cu");
    ASSERT_FALSE(has_errors(file.diagnostics));
    const auto log = dir.path() / "memcheck.log";
    std::ofstream(log) << memcheck_log("oob.cu", 12);

    RunReport report;
    report.kernel = "shift";
    report.resolved = ResolvedRun{};
    report.resolved->buffer_counts = {{"in", 1000}, {"out", 1000}};
    report.device_addresses = {{"in", 0x7f69fc800000ull}, {"out", 0x7f69fc801000ull}};
    report.failed_stage = RunStage::Launch;
    report.error = Error{"the kernel stopped with an exception", ""};

    const SanitizerSummary s = finish_sanitizing(log.string(), file, report);
    EXPECT_FALSE(std::filesystem::exists(log)) << "the log is removed once read";
    EXPECT_EQ(s.reported_errors, 2);
    ASSERT_EQ(s.findings.size(), 1u);
    EXPECT_EQ(s.findings[0].buffer, "out");
    EXPECT_EQ(s.findings[0].element, 1000);
    ASSERT_EQ(report.diagnostics.size(), 1u);
    EXPECT_EQ(report.diagnostics[0].line, 12);
    EXPECT_EQ(report.diagnostics[0].severity, Severity::Error);
    EXPECT_NE(report.diagnostics[0].message.find("by thread (231,0,0) in block (3,0,0), outside `out` (element 1000 of 1000)"),
              std::string::npos)
        << report.diagnostics[0].message;
    ASSERT_TRUE(report.error);
    EXPECT_EQ(report.error->message.rfind("compute-sanitizer stopped kernel `shift` at the first error it found: ", 0), 0u)
        << report.error->message;
    EXPECT_EQ(report.error->hint, "fix line 12, then run again");
}

TEST(SanitizeRun, TheRunGoesThroughAFreshBackendThenTheLogIsRead) {
    auto cpu = find_backend("cpu")->make();
    if (!cpu) FAIL() << "the CPU backend is needed here and could not be made: " << cpu.error().message;
    cpu->reset();
    cp::test::TempDir dir;
    // In bounds here (the CPU backend would report the real write itself): the log stands for the sanitizer's.
    std::string text = kShift;
    text.replace(text.find("out[i + 1]"), 10, "out[i]");
    const KernelFile file = parse_kernel_source(text, dir.path() / "oob.cu");
    std::string given_tool, given_log;
    int made = 0;
    auto factory = [&](const std::string& tool, const std::string& log) -> Result<std::unique_ptr<Backend>> {
        ++made;
        given_tool = tool;
        given_log = log;
        std::ofstream(log) << memcheck_log("oob.cu", 12);
        return find_backend("cpu")->make();
    };
    RunOptions options;
    options.timing = TimingOptions{0, 1, false};
    auto r = run_sanitized(file, RunChoices{}, options, "memcheck", factory);
    ASSERT_TRUE(r.ok()) << r.error().full();
    EXPECT_EQ(made, 1);
    EXPECT_EQ(given_tool, "memcheck");
    EXPECT_FALSE(std::filesystem::exists(given_log));
    EXPECT_TRUE(r->report.launched) << (r->report.error ? r->report.error->full() : "");
    ASSERT_EQ(r->summary.findings.size(), 1u);
    EXPECT_EQ(r->summary.findings[0].line, 12);
    ASSERT_FALSE(r->report.diagnostics.empty());
    EXPECT_EQ(r->report.diagnostics.back().line, 12);

    // A tool that does not exist is refused before any backend is made.
    auto bad = run_sanitized(file, RunChoices{}, options, "leakcheck", factory);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("not `leakcheck`"), std::string::npos) << bad.error().message;
    EXPECT_EQ(made, 1);
}

TEST(SanitizeRun, WhyItCannotRunIsSaidPlainly) {
    DeviceInfo cpu;
    cpu.backend = "cpu";
    const std::string on_cpu = sanitize_unavailable_reason(cpu);
    EXPECT_EQ(on_cpu.rfind("Sanitize needs the CUDA backend and compute-sanitizer (CUDA toolkit); ", 0), 0u) << on_cpu;
    EXPECT_NE(on_cpu.find("cpu backend"), std::string::npos) << on_cpu;
    DeviceInfo gpu;
    gpu.backend = "cuda";
    gpu.caps.gpu = true;
    EXPECT_NE(sanitize_unavailable_reason(gpu).find("compute-sanitizer was not found"), std::string::npos);
    // Over --remote the server decides (its worker refuses in its greeting when it has no sanitizer), even
    // where this machine has no toolkit at all.
    DeviceInfo remote = gpu;
    remote.where = "remote: `ssh gpu01` -> host gpu01 (cuda backend, NVIDIA H100)";
    EXPECT_EQ(sanitize_unavailable_reason(remote), "");
    gpu.caps.sanitizer = true;
    EXPECT_EQ(sanitize_unavailable_reason(gpu), "");
    DeviceInfo none;
    none.caps.launches = false;
    EXPECT_NE(sanitize_unavailable_reason(none).find("nothing can run kernels here"), std::string::npos);
}
