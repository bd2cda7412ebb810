// `devices: all over n` from the command line: the lesson split over three CPU workers
// (CUDA_PLAYGROUND_CPU_DEVICES=3) verifies, says per device what it did, and says they are CPU workers, not GPUs.
#include "cli_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

using cp::test::cli;

namespace {

// 1000003 -> "1,000,003", as the report writes counts.
std::string with_commas(uint64_t v) {
    std::string digits = std::to_string(v), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

}  // namespace

TEST(DevicesCli, TheLessonSplitsOverThreeCpuWorkersAndVerifies) {
    auto r = cli({"run", "multigpu/split_across_gpus", "--backend", "cpu", "--repeat", "1", "--json", "-"},
                 {"CUDA_PLAYGROUND_CPU_DEVICES=3"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["verified"], true) << j["mismatch_detail"];
    const auto& d = j["devices"];
    ASSERT_TRUE(d.is_object());
    EXPECT_EQ(d["kind"], "cpu worker");
    EXPECT_EQ(d["devices_here"], 3);
    ASSERT_EQ(d["parts"].size(), 3u);
    const uint64_t n = j["params"]["n"].get<uint64_t>();
    EXPECT_NE(n % 256, 0u) << "the lesson's n is not a multiple of the block";
    uint64_t next = 0;
    for (size_t k = 0; k < 3; ++k) {
        const auto& p = d["parts"][k];
        EXPECT_EQ(p["ordinal"], int(k));
        EXPECT_EQ(p["begin"], next);
        EXPECT_EQ(p["end"], n * (k + 1) / 3);
        EXPECT_NE(p["name"].get<std::string>().find("CPU worker"), std::string::npos);
        for (const char* t : {"allocate_ms", "host_to_device_ms", "kernel_ms", "device_to_host_ms"})
            EXPECT_GE(p[t].get<double>(), 0.0) << t;
        next = p["end"].get<uint64_t>();
    }
    EXPECT_EQ(next, n);
    EXPECT_GT(d["split_wall_ms"].get<double>(), 0.0);
    EXPECT_GT(d["one_device_wall_ms"].get<double>(), 0.0);

    // The text says it too: each worker's part, computed from n as above.
    auto text = cli({"run", "multigpu/split_across_gpus", "--backend", "cpu", "--repeat", "1"},
                    {"CUDA_PLAYGROUND_CPU_DEVICES=3"});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    std::string parts = "devices:  3 CPU workers: ";
    for (uint64_t k = 0; k < 3; ++k)
        parts += (k ? ", CPU worker " : "CPU worker ") + std::to_string(k) + (k ? " [" : " did [") +
                 std::to_string(n * k / 3) + ", " + std::to_string(n * (k + 1) / 3) + ")";
    EXPECT_NE(text.out.find(parts), std::string::npos) << parts << "\n" << text.out;
    EXPECT_NE(text.out.find("CPU workers share this machine's cores"), std::string::npos) << text.out;
}

TEST(DevicesCli, OnOneDeviceItSaysWhatItWouldDo) {
    const uint64_t n = 1234567;  // odd: the halves differ by one, and the larger is said
    auto r = cli(
        {"run", "multigpu/split_across_gpus", "--backend", "cpu", "--repeat", "1", "--set", "n=" + std::to_string(n)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string says = "1 CPU worker here: CPU worker 0 did all " + with_commas(n) +
                             " elements; with 2 CPU workers each would take about " + with_commas(n - n / 2);
    EXPECT_NE(r.out.find(says), std::string::npos) << says << "\n" << r.out;
}

TEST(DevicesCli, ABadDeviceCountIsNamed) {
    auto r = cli({"run", "multigpu/split_across_gpus", "--backend", "cpu"}, {"CUDA_PLAYGROUND_CPU_DEVICES=lots"});
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find("CUDA_PLAYGROUND_CPU_DEVICES=lots is not a number of devices"), std::string::npos) << r.err;
}
