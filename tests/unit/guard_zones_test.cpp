// Guard zones without a GPU: layout and alignment, the pattern, and which element a stray write hit, on a
// host copy of an allocation laid out exactly as the CUDA backend lays it out on the device.
#include "core/cuda/guard_zones.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace cp;

namespace {

// A host stand-in for one device allocation: [front][data][back], zones filled as the backend fills them.
struct FakeAllocation {
    GuardLayout layout;
    std::vector<std::byte> memory;
    explicit FakeAllocation(uint64_t data_bytes) : layout(guard_layout(data_bytes)), memory(layout.total()) {
        const auto front = guard_pattern(GuardSide::Front, layout.front);
        const auto back = guard_pattern(GuardSide::Back, layout.back);
        std::memcpy(memory.data(), front.data(), front.size());
        std::memcpy(memory.data() + layout.back_offset(), back.data(), back.size());
    }
    // The kernel's view: element i of a T array starting after the front zone (i may be out of range).
    template <typename T> void write(int64_t i, T value) {
        std::memcpy(memory.data() + int64_t(layout.front) + i * int64_t(sizeof(T)), &value, sizeof(T));
    }
    std::optional<GuardViolation> check(GuardSide side, uint32_t element_bytes) const {
        return side == GuardSide::Front
                   ? check_guard(side, memory.data(), layout.front, layout.data, element_bytes)
                   : check_guard(side, memory.data() + layout.back_offset(), layout.back, layout.data, element_bytes);
    }
};

}  // namespace

TEST(GuardZones, KeepTheBuffersAlignmentAndCoverThePadding) {
    for (uint64_t bytes : {0ull, 1ull, 4000ull, 4096ull, 1000003ull * 4}) {
        const GuardLayout l = guard_layout(bytes);
        EXPECT_EQ(l.front % 256, 0u);
        EXPECT_EQ(l.total() % 256, 0u) << bytes;
        EXPECT_GE(l.back, kGuardBytes);
        EXPECT_EQ(l.back_offset(), l.front + bytes);
    }
}

TEST(GuardZones, PatternIsNeitherZerosNorAConstantAndDiffersBySide) {
    const auto front = guard_pattern(GuardSide::Front, 1024);
    const auto back = guard_pattern(GuardSide::Back, 1024);
    EXPECT_NE(front, back);
    int distinct = 0;
    for (size_t i = 0; i < front.size(); ++i) {
        EXPECT_NE(front[i], std::byte{0});
        EXPECT_NE(front[i], std::byte{0xFF});
        distinct += i > 0 && front[i] != front[i - 1];
    }
    EXPECT_GT(distinct, 1000);
}

TEST(GuardZones, UntouchedZonesPass) {
    FakeAllocation a(1000 * 4);
    for (int i = 0; i < 1000; ++i) a.write<float>(i, float(i));  // every element, none past the end
    EXPECT_FALSE(a.check(GuardSide::Front, 4));
    EXPECT_FALSE(a.check(GuardSide::Back, 4));
}

TEST(GuardZones, OnePastTheEndNamesTheElement) {
    FakeAllocation a(1000 * 4);
    a.write<float>(1000, 0.0f);  // out[i + 1] = in[i] with i = 999
    EXPECT_FALSE(a.check(GuardSide::Front, 4));
    auto v = a.check(GuardSide::Back, 4);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->first_element, 1000);
    EXPECT_EQ(v->last_element, 1000);
    EXPECT_EQ(describe_violation(*v, "out", 1000 * 4, 4), "a thread wrote past the end of `out` (element 1000 of 1000)");
}

TEST(GuardZones, SeveralElementsPastTheEndInThePaddingAndBeyond) {
    FakeAllocation a(1001 * 8);  // 8008 bytes: padding up to 8192 is part of the back zone
    a.write<double>(1001, 1.0);
    a.write<double>(1010, 2.5);
    auto v = a.check(GuardSide::Back, 8);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->first_element, 1001);
    EXPECT_EQ(v->last_element, 1010);
    EXPECT_EQ(describe_violation(*v, "y", 1001 * 8, 8), "a thread wrote past the end of `y` (elements 1001..1010 of 1001)");
}

TEST(GuardZones, BeforeTheStartGivesNegativeElements) {
    FakeAllocation a(257 * 4);
    a.write<int>(-1, 7);
    auto v = a.check(GuardSide::Front, 4);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->first_element, -1);
    EXPECT_EQ(v->last_element, -1);
    EXPECT_NE(describe_violation(*v, "in", 257 * 4, 4).find("before the start of `in` (element -1"), std::string::npos);
    FakeAllocation b(100);
    b.write<unsigned char>(-300, 3);
    v = b.check(GuardSide::Front, 1);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->first_element, -300);
    EXPECT_FALSE(b.check(GuardSide::Back, 1));
}
