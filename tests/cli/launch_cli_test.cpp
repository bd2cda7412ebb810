// The command line's launch views, on the CPU backend: `run --coverage` (the exact never-written count in
// the JSON and a coverage map PNG), `run --trace` (one record per block, a timeline PNG) and `sweep` (every
// 1D block size, CSV and JSON, the best marked); elements written by more than one thread (counted, or why not).
#include "core/data/image_io.h"
#include "cli_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

using cp::test::cli;
using cp::test::ProcessResult;
using cp::test::TempDir;

namespace {

TEST(LaunchCli, CoverageCountsNeverWrittenElementsAndWritesTheMap) {
    TempDir out;
    // Thread IDs is 333x200 with 16x16 blocks by default; a 3x2 grid reaches x < 48 and y < 32.
    auto r = cli({"run", "basics/thread_ids", "--backend", "cpu", "--grid", "3x2", "--coverage", "--repeat", "1",
                  "--out-dir", out.path().string(), "--json", (out.path() / "r.json").string()});
    ASSERT_EQ(r.exit_code, 2) << "the reference disagrees where nothing was written\n" << r.both();
    auto j = nlohmann::json::parse(cp::test::read_file(out.path() / "r.json"));
    const uint64_t w = j["params"]["width"].get<uint64_t>(), h = j["params"]["height"].get<uint64_t>();
    uint64_t expected = 0;
    for (uint64_t y = 0; y < h; ++y)
        for (uint64_t x = 0; x < w; ++x) expected += !(x < 48 && y < 32);
    ASSERT_EQ(j["coverage"].size(), 1u) << j.dump(2);
    EXPECT_EQ(j["coverage"][0]["never_written"].get<uint64_t>(), expected);
    EXPECT_EQ(j["coverage"][0]["elements"].get<uint64_t>(), w * h);
    EXPECT_NE(r.out.find("elements never written"), std::string::npos) << r.out;
    // Per element, not per component: the mismatches are exactly the unwritten elements (ints, one component).
    EXPECT_EQ(j["mismatched_elements"].get<uint64_t>(), expected);
    auto map = cp::load_image(out.path() / "ids_coverage.png");
    ASSERT_TRUE(map.ok()) << map.error().full();
    EXPECT_EQ(uint64_t(map->width), w);
    EXPECT_GT(uint64_t(map->height), h) << "the map, then its legend";
    uint64_t red = 0;
    for (size_t i = 0; i < w * h * 4; i += 4) red += map->pixels[i] > 200 && map->pixels[i + 1] < 80;
    EXPECT_EQ(red, expected);
    EXPECT_TRUE(std::filesystem::exists(out.path() / "ids_error.png"));
}

// Thread i stores element i / 2 of n (odd): the pairs' elements are written by two threads, the upper half by none.
constexpr const char* kHalfIndex = R"(/*@playground
title: Half index
param n: int = 777
buffer out: int[n] out zeros
block: 64
grid: ceil(n / block.x)
problem: n
view out: image(37, 21)
*/
extern "C" __global__ void half_index(int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i / 2] = i;
}
)";

TEST(LaunchCli, CoverageCountsElementsWrittenByMoreThanOneThread) {
    TempDir dir;
    const auto file = dir.path() / "half_index.cu";
    std::ofstream(file) << kHalfIndex;
    auto r = cli({"run", file.string(), "--backend", "cpu", "--coverage", "--repeat", "1", "--out-dir",
                  dir.path().string(), "--json", (dir.path() / "r.json").string()});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    const int n = 777;
    std::vector<int> writers(n, 0);
    for (int i = 0; i < n; ++i) ++writers[i / 2];
    uint64_t twice = 0, never = 0;
    for (int w : writers) twice += w > 1, never += w == 0;
    const uint64_t most = uint64_t(*std::max_element(writers.begin(), writers.end()));
    auto j = nlohmann::json::parse(cp::test::read_file(dir.path() / "r.json"));
    ASSERT_EQ(j["coverage"].size(), 1u) << j.dump(2);
    EXPECT_EQ(j["coverage"][0]["written_more_than_once"].get<uint64_t>(), twice);
    EXPECT_EQ(j["coverage"][0]["max_writers"].get<uint64_t>(), most);
    EXPECT_EQ(j["coverage"][0]["never_written"].get<uint64_t>(), never);
    const std::string line =
        std::to_string(twice) + " elements written by more than one thread (up to " + std::to_string(most) + ")";
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
    // The map: written-twice elements cyan, never-written red, in the view's 37 x 21 layout.
    auto map = cp::load_image(dir.path() / "out_coverage.png");
    ASSERT_TRUE(map.ok()) << map.error().full();
    uint64_t cyan = 0, red = 0;
    for (int y = 0; y < 21; ++y)
        for (int x = 0; x < 37; ++x) {
            const uint8_t* p = map->pixels.data() + (size_t(y) * map->width + x) * 4;
            cyan += p[0] < 80 && p[2] > 200;
            red += p[0] > 200 && p[2] < 80;
        }
    EXPECT_EQ(cyan, twice);
    EXPECT_EQ(red, never);
}

TEST(LaunchCli, CoverageSaysWhyWritesCouldNotBeCounted) {
    TempDir dir;
    const auto file = dir.path() / "cast.cu";
    std::string source = kHalfIndex;
    source.replace(source.find("out[i / 2] = i;"), 15, "((int*)out)[i / 2] = i;");
    std::ofstream(file) << source;
    auto r = cli({"run", file.string(), "--backend", "cpu", "--coverage", "--repeat", "1", "--json",
                  (dir.path() / "r.json").string()});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    auto j = nlohmann::json::parse(cp::test::read_file(dir.path() / "r.json"));
    ASSERT_EQ(j["coverage"].size(), 1u) << j.dump(2);
    EXPECT_FALSE(j["coverage"][0].contains("written_more_than_once"));
    const std::string why = j["coverage"][0]["written_more_than_once_not_measured"].get<std::string>();
    EXPECT_NE(why.find("cast.cu:13"), std::string::npos) << why;
    EXPECT_NE(r.out.find("written-more-than-once not measured: "), std::string::npos) << r.out;
    EXPECT_EQ(j["coverage"][0]["never_written"].get<uint64_t>(), 388u);
}

TEST(LaunchCli, TraceRecordsEveryBlockAndDrawsTheTimeline) {
    TempDir out;
    auto r = cli({"run", "image/box_blur", "--backend", "cpu", "--trace", "--repeat", "1", "--out-dir",
                  out.path().string(), "--json", (out.path() / "r.json").string()});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    auto j = nlohmann::json::parse(cp::test::read_file(out.path() / "r.json"));
    const auto& grid = j["grid"];
    const uint64_t blocks = grid[0].get<uint64_t>() * grid[1].get<uint64_t>() * grid[2].get<uint64_t>();
    ASSERT_EQ(j["trace"]["blocks"].size(), blocks);
    EXPECT_EQ(j["trace"]["unit"], "worker");
    for (size_t i = 0; i < blocks; ++i) {
        const auto& b = j["trace"]["blocks"][i];
        EXPECT_EQ(b["block"].get<uint64_t>(), i);
        EXPECT_LE(b["start_ns"].get<uint64_t>(), b["end_ns"].get<uint64_t>());
        EXPECT_TRUE(b.contains("worker"));
    }
    EXPECT_TRUE(std::filesystem::exists(out.path() / "timeline.png"));
    EXPECT_NE(r.out.find("trace:"), std::string::npos) << r.out;
}

TEST(LaunchCli, SweepTimesEveryOneDimensionalBlockSize) {
    TempDir out;
    auto r = cli({"sweep", "basics/vector_add", "--backend", "cpu", "--set", "n=20011", "--repeat", "1", "--warmup", "1",
                  "--csv", (out.path() / "s.csv").string(), "--json", (out.path() / "s.json").string(), "--png",
                  (out.path() / "s.png").string()});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    auto j = nlohmann::json::parse(cp::test::read_file(out.path() / "s.json"));
    ASSERT_EQ(j["configs"].size(), 32u);
    int best = 0;
    for (size_t i = 0; i < 32; ++i) {
        const auto& c = j["configs"][i];
        EXPECT_EQ(c["block"][0].get<int>(), int(32 * (i + 1)));
        EXPECT_EQ(c["grid"][0].get<uint64_t>(), (20011u + 32 * (i + 1) - 1) / (32 * (i + 1)));
        EXPECT_TRUE(c["median_ms"].is_number()) << c.dump();
        best += c["best"].get<bool>();
    }
    EXPECT_EQ(best, 1);
    std::istringstream csv(cp::test::read_file(out.path() / "s.csv"));
    std::string line;
    int lines = 0;
    while (std::getline(csv, line)) ++lines;
    EXPECT_EQ(lines, 33);
    EXPECT_NE(r.out.find("<- best"), std::string::npos) << r.out;
    EXPECT_TRUE(std::filesystem::exists(out.path() / "s.png"));
}

}  // namespace
