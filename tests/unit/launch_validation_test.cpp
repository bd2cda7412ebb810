// Launch checks: refusals name the limit, the value and a configuration that works; warnings for grids
// that miss part of the problem and blocks that waste warp lanes.
#include "core/engine/launch_validation.h"

#include <gtest/gtest.h>

namespace cp {
namespace {

DeviceInfo gpu() {
    DeviceInfo d;  // defaults: 1024 threads, 1024x1024x64 blocks, 48 KiB shared, 64K registers
    d.backend = "cuda";
    d.caps.gpu = true;
    d.max_shared_per_block_optin = 227 * 1024;
    return d;
}

LaunchCheck check(Dim3 grid, Dim3 block, std::vector<uint64_t> problem = {}) {
    LaunchCheck c;
    c.grid = grid;
    c.block = block;
    c.problem = std::move(problem);
    return c;
}

std::vector<LaunchIssue> only(const std::vector<LaunchIssue>& issues, Severity s) {
    std::vector<LaunchIssue> out;
    for (const auto& i : issues)
        if (i.severity == s) out.push_back(i);
    return out;
}

TEST(LaunchValidation, SuggestionFollowsTheProblemsShapeNotTheBlocks) {
    // A 3D block on a 1D problem: suggest a 1D block and a grid that covers the 1000003 elements.
    auto errors = only(validate_launch(gpu(), check({1, 1, 1}, {32, 32, 2}, {1000003})), Severity::Error);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].message.find("Try 256x1x1 and grid 3907x1x1."), std::string::npos) << errors[0].message;
    // A 1D block on a 2D image: suggest 16x16 and the grid that tiles 600x400.
    errors = only(validate_launch(gpu(), check({1, 1, 1}, {2048, 1, 1}, {600, 400})), Severity::Error);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].message.find("Try 16x16x1 and grid 38x25x1."), std::string::npos) << errors[0].message;
}

TEST(LaunchValidation, GoodConfigurationHasNoIssues) {
    EXPECT_TRUE(validate_launch(gpu(), check({3907, 1, 1}, {256, 1, 1}, {1000003})).empty());
    EXPECT_TRUE(validate_launch(gpu(), check({21, 13, 1}, {16, 16, 1}, {333, 200})).empty());
}

TEST(LaunchValidation, TooManyThreadsSuggestsBlockAndGrid) {
    const auto issues = validate_launch(gpu(), check({1, 1, 1}, {2000, 1, 1}));
    const auto errors = only(issues, Severity::Error);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].limit, "max threads per block");
    EXPECT_EQ(errors[0].message,
              "block 2000x1x1 has 2000 threads; this GPU allows at most 1024 per block. Try 256x1x1 and grid 8x1x1.");
}

TEST(LaunchValidation, TooManyThreadsUsesTheProblemForTheGrid) {
    const auto errors = only(validate_launch(gpu(), check({1, 1, 1}, {64, 64, 1}, {1000, 700})), Severity::Error);
    ASSERT_EQ(errors.size(), 1u);
    // 16x16 blocks over 1000x700: ceil(1000/16) = 63, ceil(700/16) = 44.
    EXPECT_EQ(errors[0].message,
              "block 64x64x1 has 4096 threads; this GPU allows at most 1024 per block. Try 16x16x1 and grid 63x44x1.");
}

TEST(LaunchValidation, KernelThreadLimitFromLaunchBounds) {
    LaunchCheck c = check({4, 1, 1}, {512, 1, 1}, {2048});
    c.usage.max_threads_per_block = 128;
    const auto errors = only(validate_launch(gpu(), c), Severity::Error);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].message.find("this kernel allows at most 128 per block"), std::string::npos) << errors[0].message;
    EXPECT_NE(errors[0].message.find("Try 128x1x1 and grid 16x1x1."), std::string::npos) << errors[0].message;
}

TEST(LaunchValidation, ZeroDimensions) {
    const auto issues = validate_launch(gpu(), check({0, 1, 1}, {16, 0, 1}));
    ASSERT_EQ(issues.size(), 2u);
    EXPECT_NE(issues[0].message.find("block 16x0x1 has a zero dimension"), std::string::npos);
    EXPECT_NE(issues[1].message.find("grid 0x1x1 has a zero dimension"), std::string::npos);
}

TEST(LaunchValidation, PerDimensionBlockLimit) {
    const auto errors = only(validate_launch(gpu(), check({1, 1, 1}, {1, 1, 128})), Severity::Error);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].limit, "max block size in z");
    EXPECT_NE(errors[0].message.find("is 128 threads in z; this GPU allows at most 64 in z"), std::string::npos)
        << errors[0].message;
    EXPECT_NE(errors[0].message.find("Try 1x1x64 and grid 1x1x2."), std::string::npos) << errors[0].message;
}

// 1x1x65 on a 1D problem: the block's shape is the mistake, so the suggestion is the problem's conventional
// block (not 1x1x64 with a million blocks), and no warning (warp size: "Try 256x1x1") sits next to the refusal.
TEST(LaunchValidation, RefusalComesAloneWithTheProblemsBlock) {
    const auto issues = validate_launch(gpu(), check({1000003, 1, 1}, {1, 1, 65}, {1000003}));
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(issues[0].severity, Severity::Error);
    EXPECT_EQ(issues[0].message,
              "block 1x1x65 is 65 threads in z; this GPU allows at most 64 in z. Try 256x1x1 and grid 3907x1x1.");
    // A 3D problem that extends in z keeps the block's shape, at the limit.
    const auto z = validate_launch(gpu(), check({1, 1, 1}, {2, 2, 100}, {10, 10, 300}));
    ASSERT_EQ(z.size(), 1u);
    EXPECT_NE(z[0].message.find("Try 2x2x64 and grid 5x5x5."), std::string::npos) << z[0].message;
}

TEST(LaunchValidation, PerDimensionGridLimit) {
    const auto errors = only(validate_launch(gpu(), check({1, 70000, 1}, {32, 1, 1})), Severity::Error);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].limit, "max grid size in y");
    EXPECT_NE(errors[0].message.find("grid 1x70000x1 has 70000 blocks in y; this GPU allows at most 65535 in y"),
              std::string::npos) << errors[0].message;
    EXPECT_NE(errors[0].message.find("in x"), std::string::npos);
}

TEST(LaunchValidation, SharedMemoryMentionsOptIn) {
    LaunchCheck c = check({1, 1, 1}, {256, 1, 1});
    c.usage.static_shared_bytes = 1024;
    c.dynamic_shared_bytes = 64 * 1024;
    auto errors = only(validate_launch(gpu(), c), Severity::Error);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].limit, "max shared memory per block");
    EXPECT_NE(errors[0].message.find("needs 66560 bytes of shared memory per block (1024 static + 65536 dynamic)"),
              std::string::npos) << errors[0].message;
    EXPECT_NE(errors[0].message.find("at most 49152 per block by default (up to 232448 with opt-in"), std::string::npos)
        << errors[0].message;

    c.dynamic_shared_bytes = 300 * 1024;
    errors = only(validate_launch(gpu(), c), Severity::Error);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].message.find("even with opt-in"), std::string::npos) << errors[0].message;
}

TEST(LaunchValidation, RegistersPerBlock) {
    LaunchCheck c = check({4, 1, 1}, {1024, 1, 1}, {4096});
    c.usage.registers = 128;
    const auto errors = only(validate_launch(gpu(), c), Severity::Error);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].limit, "registers per block");
    EXPECT_NE(errors[0].message.find("128 registers per thread, so a block of 1024 threads needs 131072 registers"),
              std::string::npos) << errors[0].message;
    EXPECT_NE(errors[0].message.find("Use at most 512 threads per block"), std::string::npos) << errors[0].message;
    EXPECT_NE(errors[0].message.find("__launch_bounds__(1024)"), std::string::npos);
}

TEST(LaunchValidation, GridTooSmallWarns) {
    const auto issues = validate_launch(gpu(), check({3, 1, 1}, {256, 1, 1}, {1000003}));
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(issues[0].severity, Severity::Warning);
    EXPECT_EQ(issues[0].message,
              "grid 3x1x1 of 256-thread blocks covers 768 of 1000003 elements in x if each thread handles one element; use grid ceil(1000003/256) = 3907");
}

TEST(LaunchValidation, GridTooSmallIn2D) {
    const auto issues = validate_launch(gpu(), check({21, 5, 1}, {16, 16, 1}, {333, 200}));
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(issues[0].message,
              "grid 21x5x1 of 16x16x1 blocks covers 80 of 200 elements in y if each thread handles one element; use ceil(200/16) = 13 blocks in y (grid 21x13x1)");
}

TEST(LaunchValidation, BlockNotAWarpMultipleWarns) {
    const auto issues = validate_launch(gpu(), check({10, 1, 1}, {100, 1, 1}, {1000}));
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(issues[0].severity, Severity::Warning);
    EXPECT_EQ(issues[0].limit, "warp size");
    EXPECT_NE(issues[0].message.find("100 threads, not a multiple of the warp size (32)"), std::string::npos);
    EXPECT_NE(issues[0].message.find("28 of 32 lanes idle. Try 128x1x1 and grid 8x1x1."), std::string::npos)
        << issues[0].message;
}

TEST(LaunchValidation, CpuDeviceWording) {
    DeviceInfo cpu = gpu();
    cpu.backend = "cpu";
    cpu.caps.gpu = false;
    const auto issues = validate_launch(cpu, check({1, 1, 1}, {2048, 1, 1}));
    ASSERT_FALSE(issues.empty());
    EXPECT_NE(issues[0].message.find("this device allows at most 1024"), std::string::npos);
}

TEST(LaunchFigures, CountsThreadsBeyondTheProblem) {
    const LaunchFigures f = launch_figures(gpu(), check({21, 13, 1}, {16, 16, 1}, {333, 200}));
    EXPECT_EQ(f.blocks, 21u * 13u);
    EXPECT_EQ(f.total_threads, 21u * 13u * 256u);
    EXPECT_EQ(f.warps_per_block, 8u);
    EXPECT_EQ(f.threads_beyond_problem, 21u * 13u * 256u - 333u * 200u);

    // A grid that is too small: only the launched part of the problem counts as inside.
    const LaunchFigures g = launch_figures(gpu(), check({3, 1, 1}, {100, 1, 1}, {1000}));
    EXPECT_EQ(g.warps_per_block, 4u);
    EXPECT_EQ(g.threads_beyond_problem, 0u);
    EXPECT_EQ(launch_figures(gpu(), check({4, 1, 1}, {256, 1, 1}, {1000})).threads_beyond_problem, 24u);
}

TEST(ParseDim3, AcceptsCommonForms) {
    EXPECT_EQ(parse_dim3("256"), (Dim3{256, 1, 1}));
    EXPECT_EQ(parse_dim3("16x16"), (Dim3{16, 16, 1}));
    EXPECT_EQ(parse_dim3("8x8x4"), (Dim3{8, 8, 4}));
    EXPECT_EQ(parse_dim3(" 32 * 4 "), (Dim3{32, 4, 1}));
    EXPECT_EQ(parse_dim3("2,3,4"), (Dim3{2, 3, 4}));
    EXPECT_EQ(parse_dim3("16X2"), (Dim3{16, 2, 1}));
}

TEST(ParseDim3, RejectsWithAnExample) {
    for (const char* bad : {"", "16xx16", "1x2x3x4", "abc", "0", "16x-1", "99999999999", "1.5"}) {
        std::string error;
        EXPECT_FALSE(parse_dim3(bad, &error)) << bad;
        EXPECT_NE(error.find("e.g. 256, 16x16 or 8x8x4"), std::string::npos) << bad << ": " << error;
    }
}

}  // namespace
}  // namespace cp
