// plan_chunks (core/session/chunk_plan.h): parts that tile the range exactly for sizes that divide by nothing,
// byte ranges per buffer, whole `in` buffers of other sizes, per-part grids, and the refusals.
#include "core/session/chunk_plan.h"

#include <gtest/gtest.h>

using namespace cp;

namespace {

BufferSpec buffer(const std::string& name, ElemType type, const std::string& count, Direction d, int line) {
    BufferSpec b;
    b.name = name;
    b.type = type;
    b.count_expr = count;
    b.direction = d;
    b.line = line;
    return b;
}

struct SplitCase {
    ResolvedRun run;
    std::vector<BufferSpec> buffers;
    LaunchSpec launch;
};

// A saxpy-like file: x, y of n floats (in), out of n floats, a table of 7 ints (in); grid div_up(n, block.x).
SplitCase saxpy(uint64_t n) {
    SplitCase s;
    s.run.params = {{"n", double(n)}, {"a", 2.5}};
    s.run.block = {256, 1, 1};
    s.run.grid = {uint32_t((n + 255) / 256), 1, 1};
    s.buffers = {buffer("x", ElemType::Float, "n", Direction::In, 3),
                 buffer("table", ElemType::Int, "7", Direction::In, 4),
                 buffer("out", ElemType::Double, "n", Direction::Out, 5)};
    s.run.buffer_counts = {{"x", n}, {"table", 7}, {"out", n}};
    s.launch.grid_expr[0] = "div_up(n, block.x)";
    s.launch.line = 9;
    return s;
}

}  // namespace

TEST(ChunkPlan, PartsTileTheRangeEvenlyForAnAwkwardSize) {
    const uint64_t n = 1000003;
    SplitCase s = saxpy(n);
    auto plan = plan_chunks(s.run, s.buffers, s.launch, "n", 3);
    ASSERT_TRUE(plan.ok()) << plan.error().full();
    ASSERT_EQ(plan->parts.size(), 3u);
    EXPECT_EQ(plan->total, n);
    uint64_t expected_begin = 0;
    for (const ChunkPart& p : plan->parts) {
        EXPECT_EQ(p.begin, expected_begin);
        EXPECT_EQ(p.begin, n * uint64_t(p.index) / 3);
        EXPECT_GE(p.length(), n / 3);
        EXPECT_LE(p.length(), n / 3 + 1);
        expected_begin = p.end;
        // The scalar override and the grid follow the part's length, not the run's.
        EXPECT_EQ(p.params.at("n"), double(p.length()));
        EXPECT_EQ(p.params.at("a"), 2.5);
        EXPECT_EQ(p.grid.x, (p.length() + 255) / 256);
        EXPECT_EQ(p.grid.y, 1u);
        ASSERT_EQ(p.buffers.size(), 3u);
        EXPECT_EQ(p.buffers[0].name, "x");
        EXPECT_FALSE(p.buffers[0].whole);
        EXPECT_EQ(p.buffers[0].byte_offset, p.begin * 4);
        EXPECT_EQ(p.buffers[0].bytes, p.length() * 4);
        EXPECT_TRUE(p.buffers[1].whole);
        EXPECT_EQ(p.buffers[1].byte_offset, 0u);
        EXPECT_EQ(p.buffers[1].bytes, 7u * 4);
        EXPECT_EQ(p.buffers[2].byte_offset, p.begin * 8);
        EXPECT_EQ(p.buffers[2].bytes, p.length() * 8);
        EXPECT_EQ(p.buffers[2].direction, Direction::Out);
    }
    EXPECT_EQ(expected_begin, n);
    // 1000003 = 3 * 333334 + 1: the lengths differ by one somewhere.
    EXPECT_EQ(plan->parts[0].length() + plan->parts[1].length() + plan->parts[2].length(), n);
}

TEST(ChunkPlan, ManyPartsAndOneElementEach) {
    for (const uint64_t n : {1ull, 5ull, 17ull, 1000003ull}) {
        for (const int parts : {1, 2, 7, 16}) {
            if (uint64_t(parts) > n) continue;
            SplitCase s = saxpy(n);
            auto plan = plan_chunks(s.run, s.buffers, s.launch, "n", parts);
            ASSERT_TRUE(plan.ok()) << plan.error().full();
            uint64_t covered = 0;
            for (const ChunkPart& p : plan->parts) {
                EXPECT_EQ(p.begin, covered);
                EXPECT_GE(p.length(), 1u) << "n=" << n << " parts=" << parts;
                covered = p.end;
            }
            EXPECT_EQ(covered, n);
        }
    }
}

TEST(ChunkPlan, MorePartsThanElementsIsRefused) {
    SplitCase s = saxpy(2);
    auto plan = plan_chunks(s.run, s.buffers, s.launch, "n", 3);
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.error().kind, ErrorKind::UserInput) << plan.error().full();
    // The 3 parts asked for n = 2 elements; the hint gives the 2 parts that work.
    EXPECT_NE(plan.error().message.find("3"), std::string::npos) << plan.error().message;
    EXPECT_NE(plan.error().message.find("2"), std::string::npos) << plan.error().message;
    EXPECT_NE(plan.error().hint.find("2"), std::string::npos) << plan.error().hint;
    auto zero = plan_chunks(s.run, s.buffers, s.launch, "n", 0);
    ASSERT_FALSE(zero.ok());
    EXPECT_EQ(zero.error().kind, ErrorKind::UserInput) << zero.error().full();
}

TEST(ChunkPlan, AnOutputOfAnotherSizeIsRefusedByName) {
    SplitCase s = saxpy(1000);
    s.buffers.push_back(buffer("histogram", ElemType::UInt, "256", Direction::Out, 6));
    s.run.buffer_counts["histogram"] = 256;
    auto plan = plan_chunks(s.run, s.buffers, s.launch, "n", 4);
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.error().kind, ErrorKind::UserInput) << plan.error().full();
    // The buffer, its line, its 256 elements and the 1000 of n.
    for (const std::string datum : {"`histogram`", "line 6", "256", "1000"})
        EXPECT_NE(plan.error().message.find(datum), std::string::npos) << datum << ": " << plan.error().message;
    s.buffers.back().direction = Direction::InOut;
    auto inout = plan_chunks(s.run, s.buffers, s.launch, "n", 4);
    ASSERT_FALSE(inout.ok());
    EXPECT_EQ(inout.error().kind, ErrorKind::UserInput) << inout.error().full();
    EXPECT_NE(inout.error().message.find("`histogram`"), std::string::npos) << inout.error().message;
    s.buffers.back().direction = Direction::In;  // read only: every part may read all of it
    EXPECT_TRUE(plan_chunks(s.run, s.buffers, s.launch, "n", 4).ok());
}

TEST(ChunkPlan, UnknownParameterAndNothingToSplit) {
    SplitCase s = saxpy(1000);
    auto unknown = plan_chunks(s.run, s.buffers, s.launch, "count", 2);
    ASSERT_FALSE(unknown.ok());
    EXPECT_EQ(unknown.error().kind, ErrorKind::UserInput) << unknown.error().full();
    EXPECT_NE(unknown.error().message.find("`count`"), std::string::npos) << unknown.error().message;
    auto nothing = plan_chunks(s.run, s.buffers, s.launch, "a", 2);  // a = 2.5: not a whole number
    ASSERT_FALSE(nothing.ok());
    EXPECT_EQ(nothing.error().kind, ErrorKind::UserInput) << nothing.error().full();
    EXPECT_NE(nothing.error().message.find("2.5"), std::string::npos) << nothing.error().message;
    s.run.params["m"] = 64;  // no buffer has 64 elements
    auto none = plan_chunks(s.run, s.buffers, s.launch, "m", 2);
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().kind, ErrorKind::UserInput) << none.error().full();
    // The parameter and its 64, which sizes no buffer.
    EXPECT_NE(none.error().message.find("m = 64"), std::string::npos) << none.error().message;
}

TEST(ChunkPlan, GridExpressionFailureNamesItsLine) {
    SplitCase s = saxpy(1000);
    s.launch.grid_expr[0] = "div_up(n, block.x) - 4";  // 0 blocks for a part of 250
    auto plan = plan_chunks(s.run, s.buffers, s.launch, "n", 4);
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.error().kind, ErrorKind::UserInput) << plan.error().full();
    // The grid's line, and the 0 blocks it gives for a part of 250.
    for (const std::string datum : {"line 9", "250", "0"})
        EXPECT_NE(plan.error().message.find(datum), std::string::npos) << datum << ": " << plan.error().message;
    // A 2D grid whose y follows the part: rows of 10 elements, one block row per 4 rows.
    s = saxpy(1000);
    s.launch.grid_expr[0] = "1";
    s.launch.grid_expr[1] = "div_up(n / 10, 4)";
    plan = plan_chunks(s.run, s.buffers, s.launch, "n", 2);
    ASSERT_TRUE(plan.ok()) << plan.error().full();
    EXPECT_EQ(plan->parts[0].grid.y, 13u);  // 500 / 10 = 50 rows -> 13 blocks of 4
}
