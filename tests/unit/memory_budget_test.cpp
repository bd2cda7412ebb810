// The memory budget: MemAvailable parsing, saturating size arithmetic and the refusal's wording.
#include "core/session/memory_budget.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

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

TEST(MemoryBudget, ACgroupLimitLowersWhatIsAvailable) {
    const uint64_t gib = 1ull << 30;
    EXPECT_EQ(within_cgroup_limit(8 * gib, 0, 0), 8 * gib) << "no limit";
    EXPECT_EQ(within_cgroup_limit(8 * gib, 4 * gib, 1 * gib), 3 * gib) << "the limit is below the machine's";
    EXPECT_EQ(within_cgroup_limit(8 * gib, 16 * gib, 1 * gib), 8 * gib) << "the limit is above the machine's";
    EXPECT_EQ(within_cgroup_limit(0, 4 * gib, 1 * gib), 3 * gib) << "MemAvailable unknown: the limit says";
}

// What this machine reports, read here from the same files: /proc/meminfo's MemAvailable within the cgroup's
// limit. Memory moves between the two readings (other processes), hence the tolerance.
TEST(MemoryBudget, ThisMachinesFreeMemoryIsMemAvailableWithinTheCgroupLimit) {
    auto number_in = [](const char* path) -> uint64_t {
        std::ifstream in(path);
        std::string text;
        return in >> text && text != "max" ? std::stoull(text) : 0;
    };
    std::ifstream meminfo("/proc/meminfo");
    uint64_t available_kib = 0;
    for (std::string key; meminfo >> key;) {
        if (key == "MemAvailable:") {
            meminfo >> available_kib;
            break;
        }
    }
    ASSERT_GT(available_kib, 0u) << "no MemAvailable in /proc/meminfo";
    uint64_t expected = available_kib * 1024;
    if (const uint64_t limit = number_in("/sys/fs/cgroup/memory.max")) {
        const uint64_t used = number_in("/sys/fs/cgroup/memory.current");
        expected = std::min(expected, limit > used ? limit - used : 0);
    }
    const uint64_t free_bytes = free_host_memory();
    const double tolerance = std::max(0.2 * double(expected), double(256ull << 20));
    EXPECT_NEAR(double(free_bytes), double(expected), tolerance)
        << human_bytes(free_bytes) << " free, " << human_bytes(expected) << " expected";
}
