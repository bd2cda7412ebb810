// `run` on files with steps: each step's launch and time in the text and the JSON, the check of the final
// buffers, a template instantiation as a step, and a mistake on a `step:` line reported with its line and fix.
#include "cli_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <regex>
#include <sstream>
#include "test_paths.h"

using cp::test::cli;
using cp::test::ProcessResult;
using cp::test::TempDir;

namespace {

std::string steps_file(const std::string& name) { return std::string(CP_SOURCE_DIR) + "/tests/data/steps/" + name; }

}  // namespace

TEST(CliSteps, TextAndJsonShowEveryStepAndTheTotal) {
    auto r = cli({"run", steps_file("scan_steps.cu"), "--backend", "cpu", "--repeat", "2"});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    EXPECT_NE(r.out.find("step 1:   scan_segments: grid 274x1x1, block 128x1x1"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("step 2:   scan_offsets: grid 1x1x1, block 256x1x1 (1 block of 256 threads)"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("timed passes over all steps"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("step 3 add_offsets: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("check:    Matches the CPU reference"), std::string::npos) << r.out;

    auto j = cli({"run", steps_file("increment_steps.cu"), "--backend", "cpu", "--repeat", "2", "--json", "-"});
    ASSERT_EQ(j.exit_code, 0) << j.both();
    const auto result = nlohmann::json::parse(j.out);
    EXPECT_EQ(result["verified"], true);
    ASSERT_EQ(result["steps"].size(), 1u);
    EXPECT_EQ(result["steps"][0]["repeat"], 5);
    EXPECT_EQ(result["steps"][0]["kernel"], "increment");
    EXPECT_EQ(result["timing"]["repeats"], 2);
    EXPECT_GT(result["steps"][0]["total_ms"].get<double>(), result["steps"][0]["launch_median_ms"].get<double>());
}

TEST(CliSteps, ATemplateInstantiationCanBeAStep) {
    // The pasted templated reduction, run as one step of a file: the step names the instantiation.
    TempDir dir;
    std::string text = cp::test::read_file(std::string(CP_SOURCE_DIR) + "/tests/data/pasted/reduce_cg.cu");
    text = std::regex_replace(text, std::regex("kernel: [^\n]*\n"), "");
    text = std::regex_replace(text, std::regex("block: 256\n"), "step: reduce<int, 128> block=128\n");
    auto r = cli({"run", dir.write("reduce_cg.cu", text).string(), "--backend", "cpu", "--repeat", "1"});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    EXPECT_NE(r.out.find("step 1:   reduce<int, 128>: grid 391x1x1, block 128x1x1"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("check:    Matches the CPU reference"), std::string::npos) << r.out;
}

TEST(CliSteps, AMistakeOnAStepLineNamesItsLineAndTheFix) {
    TempDir dir;
    std::string text = cp::test::read_file(steps_file("reduce_steps.cu"));
    text = std::regex_replace(text, std::regex("step: final_pass block=256"), "step: final_pass threads=256");
    auto r = cli({"run", dir.write("reduce_steps.cu", text).string(), "--backend", "cpu"});
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_NE(r.err.find("reduce_steps.cu:10:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("unknown step setting `threads=`"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("block=, grid=, shared=, repeat="), std::string::npos) << r.err;
}

TEST(CliSteps, UntilStepWritesTheBuffersAsThatStepLeftThemAndSaysTheyAreUnchecked) {
    cp::test::TempDir out;
    auto r = cli({"run", steps_file("scan_steps.cu"), "--backend", "cpu", "--repeat", "1", "--until-step", "2",
                  "--out-dir", out.path().string()});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    EXPECT_NE(r.out.find("step 2:   scan_offsets"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("step 3"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("check:    Not checked: shown after step 2 of 3"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("Matches"), std::string::npos) << r.out;
    // The written output is the saw-tooth of per-segment scans, computed here.
    const std::string csv = cp::test::read_file((out.path() / "out.csv").string());
    std::vector<long long> values;
    std::istringstream lines(csv);
    std::string line;
    while (std::getline(lines, line)) {
        const size_t comma = line.rfind(',');
        const std::string v = comma == std::string::npos ? line : line.substr(comma + 1);
        if (!v.empty() && (std::isdigit(static_cast<unsigned char>(v[0])) || v[0] == '-')) values.push_back(std::stoll(v));
    }
    ASSERT_EQ(values.size(), 70001u) << csv.substr(0, 200);
    long long sum = 0;
    for (size_t i = 0; i < values.size(); ++i) {
        sum = (i % 256 == 0 ? 0 : sum) + 5 + 3LL * static_cast<long long>(i);
        ASSERT_EQ(values[i], sum) << "element " << i;
    }

    auto bad = cli({"run", steps_file("scan_steps.cu"), "--backend", "cpu", "--until-step", "7"});
    EXPECT_EQ(bad.exit_code, 1) << bad.both();
    EXPECT_NE(bad.err.find("this file has 3 steps"), std::string::npos) << bad.err;
    EXPECT_NE(bad.err.find("from 1 to 3"), std::string::npos) << bad.err;
    auto zero = cli({"run", steps_file("scan_steps.cu"), "--backend", "cpu", "--until-step", "0"});
    EXPECT_EQ(zero.exit_code, 1) << zero.both();
    EXPECT_NE(zero.err.find("--until-step"), std::string::npos) << zero.err;
    auto none = cli({"run", "basics/vector_add", "--backend", "cpu", "--until-step", "1"});
    EXPECT_EQ(none.exit_code, 1) << none.both();
    EXPECT_NE(none.err.find("has no steps"), std::string::npos) << none.err;
}
