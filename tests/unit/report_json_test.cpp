// The run report's JSON keeps its shape: a fixed CPU-backend run has exactly the expected top-level keys and
// schema_version, so renaming or dropping a field fails here before a script that reads it breaks.
#include "core/session/report_json.h"
#include "core/engine/backend.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/session.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include "test_paths.h"
#include "core/backends/registry.h"

namespace cp {
namespace {

std::set<std::string> keys_of(const nlohmann::json& j) {
    std::set<std::string> keys;
    for (const auto& [key, value] : j.items()) keys.insert(key);
    return keys;
}

// Every top-level key of a plain checked run (no steps, streams, devices, coverage or trace). A change here is
// a change to the documented format: bump kRunReportSchemaVersion if a field was removed or changed meaning.
const std::set<std::string> kPlainRunKeys = {
    "as_expected",
    "backend",
    "bandwidth_fraction_of_copy",
    "bandwidth_gbps",
    "block",
    "buffer_counts",
    "check",
    "compile",
    "device",
    "diagnostics",
    "dynamic_shared_bytes",
    "error",
    "error_kind",
    "error_maps",
    "expect",
    "grid",
    "kernel",
    "launch_warnings",
    "learn",
    "max_abs_error",
    "mismatch_detail",
    "mismatched_elements",
    "mismatches",
    "outcome",
    "outputs",
    "params",
    "printf",
    "refused_choices",
    "resources",
    "schema_version",
    "stages",
    "timing",
    "title",
    "transfers",
    "verified",
};

TEST(ReportJson, ACheckedCpuRunHasExactlyTheDocumentedTopLevelKeys) {
    auto made = make_backend("cpu");
    ASSERT_TRUE(made.ok()) << made.error().full();
    Engine engine(std::move(made->backend));
    KernelSession session(engine);
    session.set_kernel(load_kernel_file(std::filesystem::path(CP_SOURCE_DIR) / "kernels/basics/vector_add.cu").value());
    ASSERT_TRUE(session.set_param("n", "1001"));  // not a multiple of the 256-thread block
    const RunReport r = session.run();
    ASSERT_TRUE(r.ok()) << r.error->message;

    const nlohmann::json j = run_report_json(r, {"out/c.csv"});
    EXPECT_EQ(keys_of(j), kPlainRunKeys) << json_text(j);
    // The number itself, not the constant: bumping the version is a decision this test makes visible.
    EXPECT_EQ(j.at("schema_version"), 1);
    EXPECT_EQ(j.at("check").at("state"), "matches");
    EXPECT_EQ(kRunReportSchemaVersion, 1);
    // A few values with their meaning: the test would pass on a JSON of the right shape but wrong content.
    EXPECT_EQ(j.at("kernel"), "vector_add");
    EXPECT_EQ(j.at("backend"), "cpu");
    EXPECT_EQ(j.at("verified"), true);
    EXPECT_EQ(j.at("grid"), nlohmann::json::array({(1001 + 255) / 256, 1, 1}));
    EXPECT_EQ(j.at("buffer_counts").at("c"), 1001);
    EXPECT_EQ(j.at("outputs"), nlohmann::json::array({"out/c.csv"}));
    EXPECT_EQ(j.at("timing").at("repeats"), r.timing.samples_ms.size());
    // Each stage said once, as the report has it: the first run made everything.
    ASSERT_EQ(j.at("stages").size(), r.stage_runs.size());
    ASSERT_NE(r.stage_run("compile"), nullptr);
    EXPECT_EQ(j.at("stages").at(0), nlohmann::json({{"stage", "compile"}, {"reused", false}, {"reason", "first run"}}));
    // The text is the same value: what the CLI prints parses back to it.
    EXPECT_EQ(nlohmann::json::parse(json_text(j)), j);
}

TEST(ReportJson, ARunThatStoppedBeforeItWasResolvedKeepsTheSameKeysWithNulls) {
    RunReport r;
    r.kernel = "k";
    r.error = Error{"no kernel", "open one"};
    const nlohmann::json j = run_report_json(r, {});
    std::set<std::string> expected = kPlainRunKeys;
    expected.erase("buffer_counts");  // only a resolved run has sizes
    EXPECT_EQ(keys_of(j), expected) << json_text(j);
    EXPECT_EQ(j.at("schema_version"), kRunReportSchemaVersion);
    EXPECT_TRUE(j.at("grid").is_null());
    EXPECT_TRUE(j.at("timing").is_null());
    EXPECT_EQ(j.at("error").at("message"), "no kernel");
}

TEST(ReportJson, TextOfInvalidUtf8IsReplacedNotThrown) {
    RunReport r;
    r.printf_output = "caf\xe9";
    const std::string text = json_text(run_report_json(r, {}));
    EXPECT_NE(text.find("caf\xef\xbf\xbd"), std::string::npos) << text;
}

}  // namespace
}  // namespace cp
