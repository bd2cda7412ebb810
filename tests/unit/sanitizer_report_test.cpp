// compute-sanitizer's text log parsed into findings, and findings matched with the run's buffers. The logs
// are written here in the format compute-sanitizer prints (its documentation's examples), not captured.
#include "core/toolkit/sanitizer_report.h"

#include <gtest/gtest.h>

using namespace cp;

namespace {

const char* kMemcheckLog = R"(========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 4 bytes
=========     at oob_write+0x1b0 in /home/me/lessons/oob_write.cu:18
=========     by thread (231,0,0) in block (3,0,0)
=========     Address 0x7f3a2c000fa0 is out of bounds
=========     and is 1 bytes after the nearest allocation at 0x7f3a2c000000 of size 4,000 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: [0x2f1c3e] in libcuda.so.1
=========
hello from the program itself
========= Invalid __global__ write of size 4 bytes
=========     at oob_write+0x1b0 in /home/me/lessons/oob_write.cu:18
=========     by thread (0,0,0) in block (0,0,0)
=========     Address 0x7f3a2c100000 is out of bounds
=========
========= ERROR SUMMARY: 2 errors
)";

// As compute-sanitizer 2025.x (CUDA 13.0) wrote it on the H100 test machine for a one-past-the-end write
// (addresses changed): "Access to" instead of "Address", and the worker's calls after memcheck stopped the
// kernel reported as errors of their own.
const char* kMemcheckCuda13Log = R"(========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 4 bytes
=========     at shift+0xe0 in oob.cu:13
=========     by thread (231,0,0) in block (3,0,0)
=========     Access to 0x7f69fc801fa0 is out of bounds
=========     and is 1 bytes after the nearest allocation at 0x7f69fc801000 of size 4,000 bytes
=========
========= Program hit CUDA_ERROR_LAUNCH_FAILED (error 719) due to "unspecified launch failure" on CUDA API call to cuCtxSynchronize.
=========
========= Program hit CUDA_ERROR_LAUNCH_FAILED (error 719) due to "unspecified launch failure" on CUDA API call to cuCtxSynchronize.
=========
========= Target application returned an error
========= ERROR SUMMARY: 3 errors
)";

}  // namespace

TEST(SanitizerReport, Cuda13MemcheckLogGivesOneFindingWithItsAddress) {
    SanitizerSummary s = parse_sanitizer_log(kMemcheckCuda13Log);
    EXPECT_EQ(s.reported_errors, 3);
    ASSERT_EQ(s.findings.size(), 1u) << "the stopped launch's echoes are not findings";
    EXPECT_EQ(s.findings[0].address, 0x7f69fc801fa0ull);
    EXPECT_EQ(s.findings[0].line, 13);
    attribute_findings(s.findings, {{"in", 0x7f69fc800000ull, 4000, 4}, {"out", 0x7f69fc801000ull, 4000, 4}});
    EXPECT_EQ(s.findings[0].buffer, "out");
    EXPECT_EQ(s.findings[0].element, 1000);
}

TEST(SanitizerReport, ALaunchFailureWithoutADeviceFindingStaysAFinding) {
    const SanitizerSummary s = parse_sanitizer_log(
        "========= Program hit CUDA_ERROR_LAUNCH_FAILED (error 719) due to \"unspecified launch failure\" on CUDA "
        "API call to cuCtxSynchronize.\n========= ERROR SUMMARY: 1 error\n");
    ASSERT_EQ(s.findings.size(), 1u);
    EXPECT_EQ(s.findings[0].kind.rfind("Program hit", 0), 0u);
}

TEST(SanitizerReport, MemcheckFindingsHaveKindThreadBlockAddressAndLine) {
    const SanitizerSummary s = parse_sanitizer_log(kMemcheckLog);
    EXPECT_EQ(s.reported_errors, 2);
    ASSERT_EQ(s.findings.size(), 2u);
    const SanitizerFinding& f = s.findings[0];
    EXPECT_EQ(f.kind, "Invalid __global__ write of size 4 bytes");
    ASSERT_TRUE(f.thread && f.block);
    EXPECT_EQ(f.thread->x, 231u);
    EXPECT_EQ(f.block->x, 3u);
    EXPECT_EQ(f.address, 0x7f3a2c000fa0ull);
    EXPECT_EQ(f.file, "/home/me/lessons/oob_write.cu");
    EXPECT_EQ(f.line, 18);
    EXPECT_NE(f.detail.find("1 bytes after the nearest allocation"), std::string::npos) << f.detail;
    EXPECT_EQ(s.findings[1].thread->x, 0u);
}

TEST(SanitizerReport, AddressesAreNamedAsBufferAndElement) {
    SanitizerSummary s = parse_sanitizer_log(kMemcheckLog);
    // 4000 bytes = 1000 floats at ...000; 0x...fa0 is byte 4000: element 1000, one past the end.
    attribute_findings(s.findings, {{"in", 0x7f3a2c200000ull, 4000, 4}, {"out", 0x7f3a2c000000ull, 4000, 4}});
    EXPECT_EQ(s.findings[0].buffer, "out");
    EXPECT_EQ(s.findings[0].element, 1000);
    EXPECT_EQ(s.findings[0].buffer_elements, 1000u);
    EXPECT_EQ(s.findings[0].message(),
              "Invalid __global__ write of size 4 bytes by thread (231,0,0) in block (3,0,0), outside `out` "
              "(element 1000 of 1000) at oob_write.cu:18");
    EXPECT_EQ(s.findings[1].buffer, "") << "1 MiB away from every buffer: not attributed";
}

TEST(SanitizerReport, RacecheckSynccheckAndInitcheckFindings) {
    const char* log = R"(========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at shared_sum+0x120 in /k/shared_sum.cu:31
=========     and Read access at shared_sum+0x160 in /k/shared_sum.cu:35 [248 hazards]
=========
========= Barrier error detected. Divergent thread(s) in block
=========     at bad_sync+0x90 in /k/bad_sync.cu:12
=========     by thread (5,0,0) in block (1,0,0)
=========
========= Uninitialized __global__ memory read of size 4 bytes
=========     at reader+0x70 in /k/reader.cu:9
=========     by thread (2,0,0) in block (0,0,0)
=========     Address 0x7f0000000008
=========
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
========= ERROR SUMMARY: 3 errors
)";
    const SanitizerSummary s = parse_sanitizer_log(log);
    ASSERT_EQ(s.findings.size(), 3u);
    EXPECT_EQ(s.reported_errors, 3);
    EXPECT_EQ(s.findings[0].file, "/k/shared_sum.cu");
    EXPECT_EQ(s.findings[0].line, 31);
    EXPECT_NE(s.findings[0].detail.find("Read access"), std::string::npos);
    EXPECT_EQ(s.findings[1].line, 12);
    EXPECT_EQ(s.findings[1].block->x, 1u);
    EXPECT_EQ(s.findings[2].kind, "Uninitialized __global__ memory read of size 4 bytes");
    EXPECT_EQ(s.findings[2].address, 0x7f0000000008ull);
}

TEST(SanitizerReport, ACleanRunAndAnUnfinishedLog) {
    EXPECT_TRUE(parse_sanitizer_log("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n").findings.empty());
    EXPECT_EQ(parse_sanitizer_log("========= COMPUTE-SANITIZER\n").reported_errors, -1);
}

TEST(SanitizerReport, ToolNames) {
    for (const char* t : {"memcheck", "racecheck", "synccheck", "initcheck"}) EXPECT_TRUE(is_sanitizer_tool(t));
    EXPECT_FALSE(is_sanitizer_tool("leakcheck"));
}
