// The memory budget: MemAvailable parsing, saturating size arithmetic and the refusal's wording.
#include "core/session/memory_budget.h"

#include <gtest/gtest.h>

using namespace cp;

TEST(MemoryBudget, ReadsMemAvailableInBytes) {
    const std::string meminfo = "MemTotal:       24000000 kB\nMemFree:         1000 kB\nMemAvailable:   12345 kB\n";
    EXPECT_EQ(mem_available_from_meminfo(meminfo), 12345ull * 1024);
    EXPECT_EQ(mem_available_from_meminfo("MemTotal: 5 kB\n"), 0u);
}

TEST(MemoryBudget, SizeArithmeticSaturatesInsteadOfWrapping) {
    EXPECT_EQ(mul_sat(UINT64_MAX / 2, 4), UINT64_MAX);
    EXPECT_EQ(mul_sat(1000, 4), 4000u);
    EXPECT_EQ(mul_sat(0, UINT64_MAX), 0u);
    EXPECT_EQ(add_sat(UINT64_MAX - 1, 5), UINT64_MAX);
    EXPECT_EQ(add_sat(7, 5), 12u);
}

TEST(MemoryBudget, RefusalSaysNeededAndFreeWithAHint) {
    auto e = check_fits("the buffers", "host", 3ull << 30, 1ull << 30);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->message, "the buffers need 3.0 GiB of host memory but only 1.0 GiB is free");
    EXPECT_NE(e->hint.find("smaller n"), std::string::npos);
    EXPECT_FALSE(check_fits("the buffers", "host", 1ull << 30, 1ull << 30));
    EXPECT_FALSE(check_fits("the buffers", "host", 1ull << 40, 0));  // unknown: never refuse
}

TEST(MemoryBudget, ThisMachineHasSomeFreeMemory) {
    const uint64_t free_bytes = free_host_memory();
    EXPECT_GT(free_bytes, 1ull << 20);
    EXPECT_LT(free_bytes, 1ull << 50);
}
