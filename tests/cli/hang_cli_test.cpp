// A launch that never ends, stopped by the CPU backend's watchdog (issue 41): the run names the CUDA thread that was
// still running and the line it was at, as data in the JSON (it said only "an infinite loop?").
#include "cli_support.h"
#include "support/process.h"
#include "test_paths.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

using cp::test::cli;
using Json = nlohmann::json;

namespace {

TEST(Hangs, TheWatchdogNamesTheThreadStillRunningAndItsLine) {
    const std::string file = std::string(CP_TEST_DATA_DIR) + "/one_thread_spins.cu";
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    const std::string source = text.str();
    const size_t at = source.find("while (v[i] != 5.0f)");
    ASSERT_NE(at, std::string::npos);
    const int loop_line = 1 + int(std::count(source.begin(), source.begin() + long(at), '\n'));
    const int spinning = 300, block = 128;  // the element that waits, and the file's block size

    const cp::test::ProcessResult r =
        cli({"run", file, "--backend", "cpu", "--json", "-"}, {"CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S=2"});
    EXPECT_NE(r.exit_code, 0);
    const Json j = Json::parse(r.out);
    EXPECT_EQ(j.at("error_kind"), "hang");
    const Json& e = j.at("error");
    ASSERT_TRUE(e.contains("line")) << e.dump();
    EXPECT_EQ(e.at("line"), loop_line);
    EXPECT_EQ(e.at("thread"), Json::array({spinning % block, 0, 0}));
    EXPECT_EQ(e.at("block"), Json::array({spinning / block, 0, 0}));
}

}  // namespace
