// `run --json` carries the check's state as the window shows it (core/session/report_text.h): matching,
// wrong (with what was never written), or not checked and why; on the CPU backend.
#include "cli_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using cp::test::cli;
using cp::test::TempDir;

namespace {

nlohmann::json run_json(const std::vector<std::string>& extra, int expected_exit, const TempDir& dir) {
    std::vector<std::string> args = {"run",       "basics/vector_add",
                                     "--backend", "cpu",
                                     "--repeat",  "1",
                                     "--set",     "n=3001",
                                     "--json",    (dir.path() / "r.json").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = cli(args);
    EXPECT_EQ(r.exit_code, expected_exit) << r.both();
    return nlohmann::json::parse(cp::test::read_file(dir.path() / "r.json"));
}

TEST(CheckStateCli, MatchingAndSkippedAreStatesWithWords) {
    TempDir dir;
    auto j = run_json({}, 0, dir);
    EXPECT_EQ(j["check"]["state"], "matches") << j["check"].dump();
    EXPECT_EQ(j["check"]["text"].get<std::string>().rfind("Matches the CPU reference", 0), 0u);
    EXPECT_FALSE(j["check"].contains("reason"));

    j = run_json({"--no-verify"}, 0, dir);
    EXPECT_EQ(j["check"]["state"], "not_checked") << j["check"].dump();
    EXPECT_EQ(j["check"]["reason"], "--no-verify skipped it");
    EXPECT_EQ(j["verified"], nullptr);
}

TEST(CheckStateCli, AGridTooSmallIsWrongWithTheNeverWrittenCount) {
    TempDir dir;
    // 5 blocks of 256 threads reach 1,280 of the 3,001 elements; coverage is measured because the launch
    // checks warn that the grid misses part of the problem.
    auto j = run_json({"--grid", "5"}, 2, dir);
    EXPECT_EQ(j["check"]["state"], "differs") << j["check"].dump();
    EXPECT_EQ(j["check"]["never_written"], 3001u - 5u * 256u) << j["check"].dump();
    EXPECT_NE(j["check"]["text"].get<std::string>().find("1,721 of 3,001 elements never written"), std::string::npos)
        << j["check"]["text"];
}

}  // namespace
