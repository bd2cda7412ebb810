// `run` on a lesson with `streams:`: the text prints the totals and one timeline line per stream, the JSON every
// operation; a bad `streams:` line is refused with its line.
#include "cli_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

using cp::test::cli;
using cp::test::TempDir;

TEST(StreamsCli, RunPrintsTheTimelineAndTheJsonHasEveryOperation) {
    const std::string lesson = std::string(CP_SOURCE_DIR) + "/kernels/streams/overlap.cu";
    auto text = cli({"run", lesson, "--backend", "cpu", "--repeat", "1", "--set", "n=20011", "--set", "streams=3"});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("streams:  3 streams, 12 chunks"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("split over n = 20011"), std::string::npos) << text.out;
    for (const char* lane : {"stream 0 |", "stream 1 |", "stream 2 |"})
        EXPECT_NE(text.out.find(lane), std::string::npos) << lane << "\n" << text.out;
    EXPECT_EQ(text.out.find("stream 3 |"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("H host->device, K kernel, D device->host"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("check:    Matches the CPU reference"), std::string::npos) << text.out;

    auto json = cli(
        {"run", lesson, "--backend", "cpu", "--repeat", "1", "--set", "n=20011", "--set", "streams=2", "--json", "-"});
    ASSERT_EQ(json.exit_code, 0) << json.err;
    const auto j = nlohmann::json::parse(json.out);
    EXPECT_EQ(j["verified"], true);
    const auto& s = j.at("streams");
    EXPECT_EQ(s["streams"], 2);
    EXPECT_EQ(s["chunks"], 8);
    EXPECT_EQ(s["elements"], 20011);
    ASSERT_EQ(s["ops"].size(), 8u * 3u);  // x in, the kernel, y out per chunk
    uint64_t in = 0;
    for (const auto& op : s["ops"]) {
        EXPECT_EQ(op["stream"].get<int>(), op["chunk"].get<int>() % 2);
        if (op["kind"] == "h2d") in += op["bytes"].get<uint64_t>();
    }
    EXPECT_EQ(in, 20011u * 4);
    EXPECT_EQ(s["measured_by"], "host clock (operations run one after another)");
}

TEST(StreamsCli, TooManyStreamsIsRefusedWithItsLine) {
    TempDir dir;
    const std::string path = (dir.path() / "bad.cu").string();
    std::ofstream(path) << "/*@playground\ntitle: Bad\nparam n: int = 100\nbuffer y: float[n] out\n"
                           "grid: ceil(n / block.x)\nstreams: 32 over n\n*/\n"
                           "extern \"C\" __global__ void k(float* y, int n) { }\n";
    auto r = cli({"run", path, "--backend", "cpu"});
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE((r.out + r.err).find("bad.cu:6"), std::string::npos) << r.out << r.err;
    EXPECT_NE((r.out + r.err).find("from 1 to 16"), std::string::npos) << r.out << r.err;
}
