// The command line's launch views, on the CPU backend: `run --coverage` (the exact never-written count in
// the JSON and a coverage map PNG), `run --trace` (one record per block, a timeline PNG) and `sweep` (every
// 1D block size, CSV and JSON, the best marked); elements written by more than one thread (counted, or why not).
// The pictures are charts with axes and legends (drawn by the window's ImPlot code on headless EGL); with
// CUDA_PLAYGROUND_NO_GL=1 they are the plain pixel maps, whose every pixel is an element (checked exactly here).
#include "cli_support.h"
#include "core/data/image_io.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "test_paths.h"

using cp::test::cli;
using cp::test::ProcessResult;
using cp::test::TempDir;

namespace {

// The pixel pictures instead of charts: one element one pixel, so the maps can be counted.
const std::vector<std::string> kPixelPictures = {"CUDA_PLAYGROUND_NO_GL=1"};
constexpr const char* kFallbackNote = "note: pictures drawn without axes, labels or legend";

size_t occurrences(const std::string& text, const std::string& needle) {
    size_t n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
    return n;
}

// The text a chart reported drawing (CUDA_PLAYGROUND_CHART_TEXT=1): its line on stderr, or "".
std::string chart_text(const ProcessResult& r, const std::string& file) {
    const size_t at = r.err.find("chart text " + file + ":");
    return at == std::string::npos ? "" : r.err.substr(at, r.err.find('\n', at) - at);
}

TEST(LaunchCli, CoverageCountsNeverWrittenElementsAndWritesTheMap) {
    TempDir out;
    // Thread IDs is 333x200 with 16x16 blocks by default; a 3x2 grid reaches x < 48 and y < 32.
    auto r = cli({"run", "basics/thread_ids", "--backend", "cpu", "--grid", "3x2", "--coverage", "--repeat", "1",
                  "--out-dir", out.path().string(), "--json", (out.path() / "r.json").string()},
                 kPixelPictures);
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
    EXPECT_EQ(occurrences(r.err, kFallbackNote), 1u) << "one line for both pictures\n" << r.err;
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
                  dir.path().string(), "--json", (dir.path() / "r.json").string()},
                 kPixelPictures);
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

// `run --memory` (issue 23): the strided lesson's load line, its sectors counted here from the indices the
// kernel reads (x[(i * stride) % n]), in the JSON and the text.
TEST(LaunchCli, MemoryGivesTheSectorsOfEachWarpRequestOfALine) {
    // n floats: the CPU's buffer starts 4 bytes past a 32-byte boundary, which the figures must not count.
    const uint64_t n = 10007;
    for (uint64_t stride : {1, 8}) {
        TempDir out;
        auto r = cli({"run", "performance/coalesced_vs_strided", "--backend", "cpu", "--memory", "--repeat", "1",
                      "--set", "n=" + std::to_string(n), "--set", "stride=" + std::to_string(stride), "--json",
                      (out.path() / "r.json").string()});
        ASSERT_EQ(r.exit_code, 0) << r.both();
        auto j = nlohmann::json::parse(cp::test::read_file(out.path() / "r.json"));
        ASSERT_TRUE(j.contains("memory")) << j.dump();
        uint64_t requests = 0, sectors = 0;
        for (uint64_t w = 0; w * 32 < n; ++w) {
            std::set<uint64_t> s;
            for (uint64_t i = w * 32; i < std::min(n, w * 32 + 32); ++i) s.insert(i * stride % n * 4 / 32);
            ++requests, sectors += s.size();
        }
        bool found = false;
        for (const auto& e : j["memory"])
            if (e["space"] == "global" && e["op"] == "load") {
                found = true;
                EXPECT_EQ(e["requests"].get<uint64_t>(), requests);
                EXPECT_EQ(e["sectors"].get<uint64_t>(), sectors);
                EXPECT_EQ(e["ideal_sectors"].get<uint64_t>(), n / 32 * 4 + (n % 32 * 4 + 31) / 32);
            }
        EXPECT_TRUE(found) << j["memory"].dump();
        EXPECT_EQ(j["memory_recording"]["capped"], false);
        EXPECT_NE(r.out.find("global load"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("sectors/req (ideal"), std::string::npos) << r.out;
    }
}

// A build with the window draws the timeline and the coverage map as charts: 1920 px wide, lanes named, time in
// microseconds (or ms), the coverage legend with its counts; without one (or no OpenGL), pixel pictures and a note.
TEST(LaunchCli, TraceAndCoveragePicturesAreChartsWithLabels) {
    TempDir out;
    auto r = cli({"run", "image/box_blur", "--backend", "cpu", "--trace", "--coverage", "--repeat", "1", "--out-dir",
                  out.path().string()},
                 {"CUDA_PLAYGROUND_CHART_TEXT=1"});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    auto timeline = cp::load_image(out.path() / "timeline.png");
    ASSERT_TRUE(timeline.ok()) << timeline.error().full();
    auto coverage = cp::load_image(out.path() / "dst_coverage.png");
    ASSERT_TRUE(coverage.ok()) << coverage.error().full();
#ifdef CP_UI_TEST_HELPER
    ASSERT_EQ(r.err.find(kFallbackNote), std::string::npos) << "no headless OpenGL (Mesa's EGL) here?\n" << r.err;
    EXPECT_EQ(timeline->width, 1920);
    EXPECT_GE(timeline->height, 500);
    const std::string lanes = chart_text(r, "timeline.png");
    // A lane per worker that ran blocks (under load one worker may take them all, so not always "worker 0").
    EXPECT_NE(lanes.find("[worker "), std::string::npos) << r.err;
    EXPECT_NE(lanes.find("time since the first block started ("), std::string::npos) << r.err;
    EXPECT_NE(lanes.find("[block index]"), std::string::npos) << r.err;
    EXPECT_EQ(coverage->width, 1920);
    // 600 x 400 elements drawn square: the picture is taller than wide's two thirds.
    EXPECT_GT(coverage->height, 1920 * 2 / 3);
    const std::string legend = chart_text(r, "dst_coverage.png");
    EXPECT_NE(legend.find("[never written: 0 of 240,000]"), std::string::npos) << r.err;
    EXPECT_NE(legend.find("[x (element column)]"), std::string::npos) << r.err;
#else
    EXPECT_EQ(occurrences(r.err, kFallbackNote), 1u) << r.err;
    EXPECT_EQ(timeline->width, 1600);
#endif
}

TEST(LaunchCli, WithoutOpenGlThePicturesArePixelsAndOneLineSaysSo) {
    TempDir out;
    auto r = cli({"run", "image/box_blur", "--backend", "cpu", "--trace", "--coverage", "--repeat", "1", "--out-dir",
                  out.path().string()},
                 {"CUDA_PLAYGROUND_NO_GL=1", "CUDA_PLAYGROUND_CHART_TEXT=1"});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    EXPECT_EQ(occurrences(r.err, kFallbackNote), 1u) << r.err;
    EXPECT_EQ(r.err.find("chart text"), std::string::npos) << r.err;
    auto timeline = cp::load_image(out.path() / "timeline.png");
    ASSERT_TRUE(timeline.ok()) << timeline.error().full();
    EXPECT_EQ(timeline->width, 1600);  // render_timeline_image's width
    auto coverage = cp::load_image(out.path() / "dst_coverage.png");
    ASSERT_TRUE(coverage.ok()) << coverage.error().full();
    EXPECT_EQ(coverage->width, 600);  // one pixel per element, the legend below
    auto s = cli({"sweep", "basics/vector_add", "--backend", "cpu", "--set", "n=5001", "--blocks", "96,160", "--repeat",
                  "1", "--png", (out.path() / "s.png").string()},
                 {"CUDA_PLAYGROUND_NO_GL=1"});
    ASSERT_EQ(s.exit_code, 0) << s.both();
    EXPECT_EQ(occurrences(s.err, kFallbackNote), 1u) << s.err;
    auto sweep = cp::load_image(out.path() / "s.png");
    ASSERT_TRUE(sweep.ok()) << sweep.error().full();
    EXPECT_EQ(sweep->width, 1200);
    EXPECT_EQ(sweep->height, 400);
}

TEST(LaunchCli, SweepTimesEveryOneDimensionalBlockSize) {
    TempDir out;
    auto r = cli({"sweep", "basics/vector_add", "--backend", "cpu", "--set", "n=20011", "--repeat", "1", "--warmup",
                  "1", "--csv", (out.path() / "s.csv").string(), "--json", (out.path() / "s.json").string(), "--png",
                  (out.path() / "s.png").string()},
                 {"CUDA_PLAYGROUND_CHART_TEXT=1"});
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
    auto png = cp::load_image(out.path() / "s.png");
    ASSERT_TRUE(png.ok()) << png.error().full();
#ifdef CP_UI_TEST_HELPER
    // The chart: 1920 x 1080, its axes named with units, the shapes on the x axis.
    EXPECT_EQ(png->width, 1920);
    EXPECT_EQ(png->height, 1080);
    const std::string text = chart_text(r, "s.png");
    for (const char* t : {"[median time (ms)]", "[predicted occupancy (%)]", "[32]", "[fastest]"})
        EXPECT_NE(text.find(t), std::string::npos) << t << "\n" << r.err;
#endif
}

}  // namespace
