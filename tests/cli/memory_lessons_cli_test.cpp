// The memory lessons through the binary (issue 23): `run LESSON --memory --set ...` on the CPU backend gives, in
// the JSON and the text, the bank conflicts and active lanes the lessons teach, counted here from the indices.
#include "cli_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

using cp::test::cli;
using cp::test::TempDir;

namespace {

nlohmann::json memory_run_json(const std::vector<std::string>& args, std::string* text = nullptr) {
    TempDir out;
    std::vector<std::string> all = {"run"};
    all.insert(all.end(), args.begin(), args.end());
    for (const char* a : {"--backend", "cpu", "--memory", "--repeat", "1", "--json"}) all.push_back(a);
    all.push_back((out.path() / "r.json").string());
    auto r = cli(all);
    EXPECT_EQ(r.exit_code, 0) << r.both();
    if (text) *text = r.out;
    return nlohmann::json::parse(cp::test::read_file(out.path() / "r.json"));
}

// Sums of the entries of `space` and `op` ("load"/"store") over the lesson's lines.
struct Sums {
    uint64_t requests = 0, conflicts = 0, entries = 0;
    double lanes = 0;  // active lanes, summed (mean x requests)
};
Sums sums(const nlohmann::json& j, const std::string& space, const std::string& op) {
    Sums s;
    for (const auto& e : j["memory"])
        if (e["space"] == space && e["op"] == op) {
            ++s.entries;
            s.requests += e["requests"].get<uint64_t>();
            s.conflicts += e["bank_conflicts"].get<uint64_t>();
            s.lanes += e["active_lanes_mean"].get<double>() * e["requests"].get<double>();
        }
    return s;
}

// Stride 32: every lane of a warp stores into bank 0, 32 different words: 31 extra passes per request. The loads
// (threads below n) read their neighbour's word, as many ways; with broadcast on they all read word 0 and have
// none. n = 5001: 20 blocks, the last with 137 threads below n (its 5th warp has 9 of them).
TEST(MemoryLessonsCli, StrideThirtyTwoIsAThirtyTwoWayConflictAndABroadcastHasNone) {
    const uint64_t n = 5001, blocks = (n + 255) / 256;
    for (const std::string broadcast : {"off", "on"}) {
        std::string text;
        const auto j = memory_run_json({"performance/shared_bank_conflicts", "--set", "n=" + std::to_string(n), "--set",
                                 "stride=32", "--set", "broadcast=" + broadcast},
                                &text);
        ASSERT_TRUE(j.contains("memory")) << j.dump();
        // Per warp: the distinct words each bank (word % 32) must serve; extra passes = the most - 1.
        uint64_t store_requests = 0, store_conflicts = 0, load_requests = 0, load_conflicts = 0;
        for (uint64_t b = 0; b < blocks; ++b)
            for (uint64_t w = 0; w < 8; ++w) {
                std::set<uint64_t> stores[32], loads[32];
                bool any_load = false;
                for (uint64_t t = w * 32; t < w * 32 + 32; ++t) {
                    stores[t * 32 % 32].insert(t * 32);
                    if (b * 256 + t >= n) continue;
                    const uint64_t word = broadcast == "on" ? 0 : (t ^ 1) * 32;
                    loads[word % 32].insert(word), any_load = true;
                }
                size_t s = 0, l = 0;
                for (int bank = 0; bank < 32; ++bank)
                    s = std::max(s, stores[bank].size()), l = std::max(l, loads[bank].size());
                ++store_requests, store_conflicts += s - 1;
                if (any_load) ++load_requests, load_conflicts += l - 1;
            }
        EXPECT_EQ(store_conflicts, store_requests * 31);
        const Sums store = sums(j, "shared", "store"), load = sums(j, "shared", "load");
        EXPECT_EQ(store.requests, store_requests);
        EXPECT_EQ(store.conflicts, store_conflicts) << broadcast;
        EXPECT_EQ(load.requests, load_requests);
        EXPECT_EQ(load.conflicts, load_conflicts) << broadcast;
        EXPECT_EQ(load_conflicts == 0, broadcast == "on");
        EXPECT_EQ(j["memory_recording"]["capped"], false);
        EXPECT_NE(text.find("31.0 bank conflicts/req"), std::string::npos) << text;
    }
}

// k = 4 in blocks of 256: a quarter of each warp's lanes load in branch A, the rest in B, all store after it.
TEST(MemoryLessonsCli, DivergenceSplitsAWarpsLanesBetweenTheBranches) {
    const uint64_t n = 3000, k = 4;
    const auto j = memory_run_json({"performance/warp_divergence", "--set", "n=" + std::to_string(n), "--set",
                             "k=" + std::to_string(k), "--set", "work=2"});
    ASSERT_TRUE(j.contains("memory")) << j.dump();
    uint64_t warps = 0, lanes_a = 0;
    for (uint64_t w = 0; w * 32 < n; ++w) {
        ++warps;
        for (uint64_t i = w * 32; i < std::min(n, w * 32 + 32); ++i) lanes_a += (i % 256) % k == 0;
    }
    const Sums loads = sums(j, "global", "load"), store = sums(j, "global", "store");
    EXPECT_EQ(loads.entries, 2u) << "one load in each branch: " << j["memory"].dump();
    EXPECT_EQ(loads.requests, 2 * warps) << "every warp runs both sides";
    EXPECT_DOUBLE_EQ(loads.lanes, double(n));
    EXPECT_EQ(store.requests, warps);
    EXPECT_DOUBLE_EQ(store.lanes, double(n));
    bool found_a = false;
    for (const auto& e : j["memory"])
        if (e["op"] == "load" &&
            std::abs(e["active_lanes_mean"].get<double>() * e["requests"].get<double>() - double(lanes_a)) < 1e-6)
            found_a = true;
    EXPECT_TRUE(found_a) << "a load line with the " << lanes_a << " lanes of branch A: " << j["memory"].dump();
}

}  // namespace
