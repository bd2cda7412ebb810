// `run FILE --compare` without OTHER (issue 8 item 4): the variants the header's `compare:` lists run on the same
// inputs, each is checked and gets its speed-up; a variant that is wrong fails the run (exit 2) and says so, one
// that cannot be read is an error of its own; a lesson with `compare:` run alone names its variants.
#include "cli_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include "test_paths.h"

using cp::test::cli;
using cp::test::TempDir;

namespace {

const std::string kScale = std::string(CP_TEST_DATA_DIR) + "/compare/scale.cu";

}  // namespace

TEST(CliCompare, WithoutOtherTheHeadersVariantsRunOnTheSameInputsAndEachVerifies) {
    auto r = cli({"run", kScale, "--backend", "cpu", "--set", "width=45", "--repeat", "2", "--compare", "--json", "-"});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["kernel"], "scale_2d");
    EXPECT_EQ(j["verified"], true);
    ASSERT_EQ(j["variants"].size(), 1u);
    const auto& v = j["variants"][0];
    EXPECT_EQ(v["variant"], "scale_rows");
    EXPECT_EQ(v["kernel"], "scale_rows");
    EXPECT_EQ(v["verified"], true);
    EXPECT_EQ(v["params"]["width"], 45) << "the same --set";
    EXPECT_EQ(v["params"]["height"], 23);
    ASSERT_TRUE(v["speedup"].is_number());
    EXPECT_NEAR(v["speedup"].get<double>(),
                j["timing"]["median_ms"].get<double>() / v["timing"]["median_ms"].get<double>(), 1e-9);
    EXPECT_EQ(j["compare"]["kernel"], "scale_rows") << "`compare` stays the first variant's result";

    r = cli({"run", kScale, "--backend", "cpu", "--compare"});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    EXPECT_NE(r.out.find("compared with scale_rows:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("speed-up: scale_rows takes"), std::string::npos) << r.out;

    // Alone, the lesson says what it compares with.
    r = cli({"run", kScale, "--backend", "cpu"});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    EXPECT_NE(r.out.find("this lesson compares scale_2d with scale_rows: add --compare"), std::string::npos) << r.out;
    // `run --compare FILE`: the file, not a variant.
    r = cli({"run", "--compare", kScale, "--backend", "cpu", "--json", "-"});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    EXPECT_EQ(nlohmann::json::parse(r.out)["variants"].size(), 1u);
}

TEST(CliCompare, AWrongVariantFailsTheRunAndOneThatCannotBeReadIsAnError) {
    TempDir dir;
    std::string text = cp::test::read_file(kScale);
    text.replace(text.find("compare: scale_rows"), 19, "compare: scale_rows scale_wrong");
    std::ofstream(dir.path() / "scale.cu") << text;
    const std::string file = (dir.path() / "scale.cu").string();
    auto r = cli({"run", file, "--backend", "cpu", "--compare", "--json", "-"});
    EXPECT_EQ(r.exit_code, 2) << r.both();
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["verified"], true);
    ASSERT_EQ(j["variants"].size(), 2u);
    EXPECT_EQ(j["variants"][0]["verified"], true);
    EXPECT_EQ(j["variants"][1]["kernel"], "scale_wrong");
    EXPECT_EQ(j["variants"][1]["verified"], false);
    EXPECT_EQ(j["variants"][1]["mismatches"], 23) << "one column of 23 rows";

    r = cli({"run", file, "--backend", "cpu", "--compare"});
    EXPECT_EQ(r.exit_code, 2) << r.both();
    EXPECT_NE(r.out.find("check:    Differs from the CPU reference"), std::string::npos) << r.out;

    // A variant file that is not there: the others still run, the run is an error (1) naming it.
    text.replace(text.find("compare: scale_rows scale_wrong"), 31, "compare: scale_rows missing/nowhere");
    std::ofstream(dir.path() / "scale.cu") << text;
    r = cli({"run", file, "--backend", "cpu", "--compare", "--json", "-"});
    EXPECT_EQ(r.exit_code, 1) << r.both();
    j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["variants"][0]["verified"], true);
    EXPECT_NE(j["variants"][1]["error"].get<std::string>().find("`compare: missing/nowhere` (line"), std::string::npos)
        << r.out;

    // --compare alone on a lesson without `compare:` says how to name one.
    r = cli({"run", "basics/vector_add", "--backend", "cpu", "--compare"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("lists none"), std::string::npos) << r.err;
}
