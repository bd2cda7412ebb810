// Launch checks: refusals name the limit, the value and a configuration that works; warnings for grids
// that miss part of the problem and blocks that waste warp lanes.
#include "core/engine/launch_validation.h"

#include <gtest/gtest.h>

#include <optional>

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

// A datum (a size, a shape, a limit) the issue's message names (the words the user reads carry the same numbers
// as the issue's fields): the test looks for the number, never for the sentence around it.
::testing::AssertionResult names(const LaunchIssue& issue, std::initializer_list<const char*> data) {
    for (const char* datum : data)
        if (issue.message.find(datum) == std::string::npos)
            return ::testing::AssertionFailure() << "`" << datum << "` not in: " << issue.message;
    return ::testing::AssertionSuccess();
}

// The issue's numbers as data: what the launch has against the limit, and the block and grid it suggests.
::testing::AssertionResult has(const LaunchIssue& issue, uint64_t value, uint64_t maximum,
                               std::optional<Dim3> block = std::nullopt, std::optional<Dim3> grid = std::nullopt) {
    auto text = [](const std::optional<Dim3>& d) { return d ? d->str() : std::string("none"); };
    if (issue.value != value || issue.maximum != maximum || text(issue.try_block) != text(block) ||
        text(issue.try_grid) != text(grid))
        return ::testing::AssertionFailure() << "has " << issue.value << " of " << issue.maximum << ", try "
                                             << text(issue.try_block) << " / " << text(issue.try_grid) << "; wanted "
                                             << value << " of " << maximum << ", try " << text(block) << " / "
                                             << text(grid);
    return ::testing::AssertionSuccess();
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
    EXPECT_EQ(errors[0].limit, "max threads per block");
    EXPECT_TRUE(names(errors[0], {"256x1x1", "3907x1x1"}));
    // A 1D block on a 2D image: suggest 16x16 and the grid that tiles 600x400.
    errors = only(validate_launch(gpu(), check({1, 1, 1}, {2048, 1, 1}, {600, 400})), Severity::Error);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].limit, "max threads per block");
    EXPECT_TRUE(names(errors[0], {"16x16x1", "38x25x1"}));
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
    EXPECT_TRUE(names(errors[0], {"2000x1x1", "2000", "1024", "256x1x1", "8x1x1"}));
    // No problem: the grid covers the 2000 threads the launch had, in blocks of 256.
    EXPECT_TRUE(has(errors[0], 2000, 1024, Dim3{256, 1, 1}, Dim3{(2000 + 255) / 256, 1, 1}));
}

TEST(LaunchValidation, TooManyThreadsUsesTheProblemForTheGrid) {
    const auto errors = only(validate_launch(gpu(), check({1, 1, 1}, {64, 64, 1}, {1000, 700})), Severity::Error);
    ASSERT_EQ(errors.size(), 1u);
    // 16x16 blocks over 1000x700: ceil(1000/16) = 63, ceil(700/16) = 44.
    EXPECT_EQ(errors[0].limit, "max threads per block");
    EXPECT_TRUE(names(errors[0], {"64x64x1", "4096", "1024", "16x16x1", "63x44x1"}));
    EXPECT_TRUE(has(errors[0], 64 * 64, 1024, Dim3{16, 16, 1}, Dim3{(1000 + 15) / 16, (700 + 15) / 16, 1}));
}

TEST(LaunchValidation, KernelThreadLimitFromLaunchBounds) {
    LaunchCheck c = check({4, 1, 1}, {512, 1, 1}, {2048});
    c.usage.max_threads_per_block = 128;
    const auto errors = only(validate_launch(gpu(), c), Severity::Error);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].limit, "max threads per block of this kernel");
    EXPECT_TRUE(names(errors[0], {"128", "128x1x1", "16x1x1"}));
}

TEST(LaunchValidation, ZeroDimensions) {
    const auto issues = validate_launch(gpu(), check({0, 1, 1}, {16, 0, 1}));
    ASSERT_EQ(issues.size(), 2u);
    EXPECT_EQ(issues[0].severity, Severity::Error);
    EXPECT_EQ(issues[0].limit, "zero block size");
    EXPECT_EQ(issues[0].setting, LaunchSetting::Block);
    EXPECT_TRUE(names(issues[0], {"16x0x1"}));
    EXPECT_EQ(issues[1].severity, Severity::Error);
    EXPECT_EQ(issues[1].limit, "zero grid size");
    EXPECT_EQ(issues[1].setting, LaunchSetting::Grid);
    EXPECT_TRUE(names(issues[1], {"0x1x1"}));
}

TEST(LaunchValidation, PerDimensionBlockLimit) {
    const auto errors = only(validate_launch(gpu(), check({1, 1, 1}, {1, 1, 128})), Severity::Error);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].limit, "max block size in z");
    EXPECT_TRUE(names(errors[0], {"128", "64", "1x1x64", "1x1x2"}));
}

// 1x1x65 on a 1D problem: the block's shape is the mistake, so the suggestion is the problem's conventional
// block (not 1x1x64 with a million blocks), and no warning (warp size: "Try 256x1x1") sits next to the refusal.
TEST(LaunchValidation, RefusalComesAloneWithTheProblemsBlock) {
    const auto issues = validate_launch(gpu(), check({1000003, 1, 1}, {1, 1, 65}, {1000003}));
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(issues[0].severity, Severity::Error);
    EXPECT_EQ(issues[0].limit, "max block size in z");
    EXPECT_TRUE(names(issues[0], {"1x1x65", "64", "256x1x1", "3907x1x1"}));
    EXPECT_EQ(issues[0].message.find("1x1x64"), std::string::npos) << issues[0].message;
    // A 3D problem that extends in z keeps the block's shape, at the limit.
    const auto z = validate_launch(gpu(), check({1, 1, 1}, {2, 2, 100}, {10, 10, 300}));
    ASSERT_EQ(z.size(), 1u);
    EXPECT_EQ(z[0].limit, "max block size in z");
    EXPECT_TRUE(names(z[0], {"2x2x64", "5x5x5"}));
}

TEST(LaunchValidation, PerDimensionGridLimit) {
    const auto errors = only(validate_launch(gpu(), check({1, 70000, 1}, {32, 1, 1})), Severity::Error);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].limit, "max grid size in y");
    EXPECT_EQ(errors[0].setting, LaunchSetting::Grid);
    // The fix puts the long dimension in x, which allows 2^31-1 blocks.
    EXPECT_TRUE(names(errors[0], {"1x70000x1", "70000", "65535", std::to_string(gpu().max_grid.x).c_str()}));
}

TEST(LaunchValidation, SharedMemoryMentionsOptIn) {
    LaunchCheck c = check({1, 1, 1}, {256, 1, 1});
    c.usage.static_shared_bytes = 1024;
    c.dynamic_shared_bytes = 64 * 1024;
    auto errors = only(validate_launch(gpu(), c), Severity::Error);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].limit, "max shared memory per block");
    EXPECT_EQ(errors[0].setting, LaunchSetting::SharedMemory);
    EXPECT_TRUE(names(errors[0], {"66560", "1024", "65536", "49152", "232448"}));
    EXPECT_TRUE(has(errors[0], 1024 + 64 * 1024, 48 * 1024));

    c.dynamic_shared_bytes = 300 * 1024;
    errors = only(validate_launch(gpu(), c), Severity::Error);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].limit, "max shared memory per block");
    // Past the opt-in limit too: the message gives both limits, the default and the opt-in one.
    EXPECT_TRUE(names(errors[0], {std::to_string(1024 + 300 * 1024).c_str(), "49152", "232448"}));
}

TEST(LaunchValidation, RegistersPerBlock) {
    LaunchCheck c = check({4, 1, 1}, {1024, 1, 1}, {4096});
    c.usage.registers = 128;
    const auto errors = only(validate_launch(gpu(), c), Severity::Error);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].limit, "registers per block");
    EXPECT_EQ(errors[0].setting, LaunchSetting::Block);
    // 128 x 1024 = 131072 registers of 65536: at most 65536 / 128 = 512 threads, or __launch_bounds__(1024).
    EXPECT_TRUE(names(errors[0], {"128", "131072", "512", "__launch_bounds__(1024)"}));
    EXPECT_TRUE(has(errors[0], 128 * 1024, 64 * 1024, Dim3{256, 1, 1}, Dim3{4096 / 256, 1, 1}));
}

TEST(LaunchValidation, GridTooSmallWarns) {
    const auto issues = validate_launch(gpu(), check({3, 1, 1}, {256, 1, 1}, {1000003}));
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(issues[0].severity, Severity::Warning);
    EXPECT_EQ(issues[0].limit, kCoverageLimit);
    EXPECT_EQ(issues[0].setting, LaunchSetting::Grid);
    EXPECT_TRUE(names(issues[0], {"3x1x1", "768", "1000003", "3907"}));
    EXPECT_TRUE(has(issues[0], 3 * 256, 1000003, Dim3{256, 1, 1}, Dim3{(1000003 + 255) / 256, 1, 1}));
}

TEST(LaunchValidation, GridTooSmallIn2D) {
    const auto issues = validate_launch(gpu(), check({21, 5, 1}, {16, 16, 1}, {333, 200}));
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(issues[0].severity, Severity::Warning);
    EXPECT_EQ(issues[0].limit, kCoverageLimit);
    EXPECT_TRUE(names(issues[0], {"21x5x1", "80", "200", "13", "21x13x1"}));
    EXPECT_TRUE(has(issues[0], 5 * 16, 200, Dim3{16, 16, 1}, Dim3{21, (200 + 15) / 16, 1}));
}

TEST(LaunchValidation, BlockNotAWarpMultipleWarns) {
    const auto issues = validate_launch(gpu(), check({10, 1, 1}, {100, 1, 1}, {1000}));
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(issues[0].severity, Severity::Warning);
    EXPECT_EQ(issues[0].limit, "warp size");
    // 100 threads are 4 warps of 32 with 28 lanes idle in the last; 128 threads cover 1000 in 8 blocks.
    EXPECT_TRUE(names(issues[0], {"100", "32", "28", "128x1x1", "8x1x1"}));
    EXPECT_TRUE(has(issues[0], 100, 32, Dim3{128, 1, 1}, Dim3{(1000 + 127) / 128, 1, 1}));
}

TEST(LaunchValidation, CpuDeviceWording) {
    DeviceInfo cpu = gpu();
    cpu.backend = "cpu";
    cpu.caps.gpu = false;
    const auto issues = validate_launch(cpu, check({1, 1, 1}, {2048, 1, 1}));
    ASSERT_FALSE(issues.empty());
    EXPECT_EQ(issues[0].severity, Severity::Error);
    EXPECT_EQ(issues[0].limit, "max threads per block");
    EXPECT_TRUE(names(issues[0], {"1024"}));
    // A CPU is not a GPU: the refusal does not call it one.
    EXPECT_EQ(issues[0].message.find("GPU"), std::string::npos) << issues[0].message;
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

std::optional<Dim3> dims(const std::string& text) {
    auto d = parse_dim3(text);
    return d ? std::optional<Dim3>(*d) : std::nullopt;
}

TEST(ParseDim3, AcceptsCommonForms) {
    EXPECT_EQ(dims("256"), (Dim3{256, 1, 1}));
    EXPECT_EQ(dims("16x16"), (Dim3{16, 16, 1}));
    EXPECT_EQ(dims("8x8x4"), (Dim3{8, 8, 4}));
    EXPECT_EQ(dims(" 32 x 4 "), (Dim3{32, 4, 1}));
    EXPECT_EQ(dims("2,3,4"), (Dim3{2, 3, 4}));
    EXPECT_EQ(dims("16X2"), (Dim3{16, 2, 1}));
    EXPECT_EQ(dims("4294967295"), (Dim3{4294967295u, 1, 1}));
}

TEST(ParseDim3, AStarIsRefusedNotReadAsAShape) {
    const auto d = parse_dim3("16*16");
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error().kind, ErrorKind::UserInput);
    // Both readings are named: the shape 16x16 and the product 256.
    EXPECT_NE(d.error().message.find("16x16"), std::string::npos) << d.error().message;
    EXPECT_NE(d.error().message.find("256"), std::string::npos) << d.error().message;
}

TEST(ParseDim3, RejectsWithAnExample) {
    for (const char* bad : {"", "16xx16", "1x2x3x4", "abc", "0", "16x-1", "99999999999", "4294967296", "1.5"}) {
        const auto d = parse_dim3(bad);
        ASSERT_FALSE(d) << bad;
        EXPECT_EQ(d.error().kind, ErrorKind::UserInput) << bad;
        // The refusal quotes the text it refused; its hint gives a shape that works.
        EXPECT_NE(d.error().message.find("`" + std::string(bad) + "`"), std::string::npos) << d.error().message;
        EXPECT_EQ(dims(d.error().hint.substr(d.error().hint.rfind(' ') + 1)), (Dim3{8, 8, 4})) << d.error().hint;
    }
}

}  // namespace
}  // namespace cp
