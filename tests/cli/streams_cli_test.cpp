// `run` on a lesson with `streams:`: the text prints the totals and one timeline line per stream, the JSON every
// operation; a bad `streams:` line is refused with its line.
#include "cli_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include "test_paths.h"

using cp::test::cli;
using cp::test::TempDir;

// The lesson's `streams:` line gives no `chunks=`, so each stream gets 4 chunks (kernel_spec.h: "empty: 4 * S").
constexpr int kChunksPerStream = 4;

TEST(StreamsCli, RunPrintsTheTimelineAndTheJsonHasEveryOperation) {
    const std::string lesson = std::string(CP_SOURCE_DIR) + "/kernels/streams/overlap.cu";
    const uint64_t n = 20011;  // not a multiple of the chunk count or the block
    const int streams = 3;
    auto text = cli({"run", lesson, "--backend", "cpu", "--repeat", "1", "--set", "n=" + std::to_string(n), "--set",
                     "streams=" + std::to_string(streams)});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    const std::string totals =
        "streams:  " + std::to_string(streams) + " streams, " + std::to_string(kChunksPerStream * streams) + " chunks";
    EXPECT_NE(text.out.find(totals), std::string::npos) << totals << "\n" << text.out;
    EXPECT_NE(text.out.find("split over n = " + std::to_string(n)), std::string::npos) << text.out;
    for (int k = 0; k < streams; ++k) {
        const std::string lane = "stream " + std::to_string(k) + " |";
        EXPECT_NE(text.out.find(lane), std::string::npos) << lane << "\n" << text.out;
    }
    EXPECT_EQ(text.out.find("stream " + std::to_string(streams) + " |"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("H host->device, K kernel, D device->host"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("check:    Matches the CPU reference"), std::string::npos) << text.out;

    const int json_streams = 2, chunks = kChunksPerStream * json_streams;
    auto json = cli({"run", lesson, "--backend", "cpu", "--repeat", "1", "--set", "n=" + std::to_string(n), "--set",
                     "streams=" + std::to_string(json_streams), "--json", "-"});
    ASSERT_EQ(json.exit_code, 0) << json.err;
    const auto j = nlohmann::json::parse(json.out);
    EXPECT_EQ(j["verified"], true);
    const auto& s = j.at("streams");
    EXPECT_EQ(s["streams"], json_streams);
    EXPECT_EQ(s["chunks"], chunks);
    EXPECT_EQ(s["elements"], n);
    ASSERT_EQ(s["ops"].size(), size_t(chunks) * 3u);  // x in, the kernel, y out per chunk
    uint64_t in = 0;
    for (const auto& op : s["ops"]) {
        EXPECT_EQ(op["stream"].get<int>(), op["chunk"].get<int>() % json_streams);
        if (op["kind"] == "h2d") in += op["bytes"].get<uint64_t>();
    }
    EXPECT_EQ(in, n * sizeof(float));  // x is float[n], copied in once, chunk by chunk
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
