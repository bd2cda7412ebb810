// The run report's JSON keeps its shape: a fixed CPU-backend run has exactly the expected top-level keys and
// schema_version, so renaming or dropping a field fails here before a script that reads it breaks.
#include "core/session/report_json.h"
#include "core/engine/backend.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/session.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <stdexcept>
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
    "launch_issues",
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

// A session on a library lesson on the CPU backend (a backend that cannot be made fails the test that asked).
struct CpuLesson {
    explicit CpuLesson(const std::string& lesson) : engine(cpu_backend()), session(engine) {
        session.set_kernel(load_kernel_file(std::filesystem::path(CP_SOURCE_DIR) / "kernels" / lesson).value());
    }
    static std::unique_ptr<Backend> cpu_backend() {
        auto made = make_backend("cpu");
        if (!made.ok()) throw std::runtime_error("no CPU backend: " + made.error().full());
        return std::move(made->backend);
    }
    Engine engine;
    KernelSession session;
};

TEST(ReportJson, ACheckedCpuRunHasExactlyTheDocumentedTopLevelKeys) {
    CpuLesson lesson("basics/vector_add.cu");
    KernelSession& session = lesson.session;
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

// The launch checks' findings as data: a refused block and a block that leaves lanes idle, each with its limit,
// the figure against it and the fix its message suggests, computed here from the device's own limits.
TEST(ReportJson, LaunchIssuesCarryTheLimitTheFigureAndTheSuggestedFix) {
    CpuLesson lesson("basics/vector_add.cu");
    KernelSession& session = lesson.session;
    ASSERT_TRUE(session.set_param("n", "1001"));
    const uint64_t max_threads = uint64_t(session.device().max_threads_per_block);
    const uint64_t warp = uint64_t(session.device().warp_size);

    RunChoices choices = session.choices();
    choices.block = Dim3{uint32_t(max_threads + 1), 1, 1};
    session.set_choices(choices);
    const nlohmann::json refused = run_report_json(session.run(), {});
    EXPECT_EQ(refused.at("error_kind"), "launch_refused");
    ASSERT_EQ(refused.at("launch_issues").size(), 1u) << json_text(refused);
    const nlohmann::json& too_many = refused.at("launch_issues").at(0);
    EXPECT_EQ(too_many.at("severity"), "error");
    EXPECT_EQ(too_many.at("setting"), "block");
    EXPECT_EQ(too_many.at("limit"), "max threads per block");
    EXPECT_EQ(too_many.at("value"), max_threads + 1);
    EXPECT_EQ(too_many.at("maximum"), max_threads);
    ASSERT_TRUE(too_many.at("try_block").is_array()) << too_many;
    const uint64_t tried = too_many.at("try_block").at(0).get<uint64_t>() * too_many.at("try_block").at(1).get<uint64_t>() *
                           too_many.at("try_block").at(2).get<uint64_t>();
    EXPECT_LE(tried, max_threads);
    EXPECT_TRUE(refused.at("launch_warnings").empty());

    choices.block = Dim3{100, 1, 1};
    session.set_choices(choices);
    const RunReport ran = session.run();
    ASSERT_TRUE(ran.ok()) << ran.error->message;
    const nlohmann::json warned = run_report_json(ran, {});
    const nlohmann::json* lanes = nullptr;
    for (const auto& issue : warned.at("launch_issues"))
        if (issue.at("limit") == "warp size") lanes = &issue;
    ASSERT_NE(lanes, nullptr) << json_text(warned);
    EXPECT_EQ(lanes->at("severity"), "warning");
    EXPECT_EQ(lanes->at("setting"), "block");
    EXPECT_EQ(lanes->at("value"), 100u);
    EXPECT_EQ(lanes->at("maximum"), warp);
    const uint64_t rounded = (100 + warp - 1) / warp * warp;
    EXPECT_EQ(lanes->at("try_block"), nlohmann::json::array({rounded, 1, 1}));
    EXPECT_EQ(lanes->at("try_grid"), nlohmann::json::array({(1001 + rounded - 1) / rounded, 1, 1}));
    EXPECT_EQ(warned.at("launch_warnings").size(), warned.at("launch_issues").size());
}

// An int parameter is written as an integer (1001, not 1001.0: a script's n == 1001 holds in any language), a
// float one as a number with its fraction.
TEST(ReportJson, IntegerParametersAreIntegersAndFloatOnesKeepTheirFraction) {
    CpuLesson lesson("memory/round_trip.cu");
    KernelSession& session = lesson.session;
    ASSERT_TRUE(session.set_param("n", "1001"));
    ASSERT_TRUE(session.set_param("a", "2.5"));
    const RunReport r = session.run();
    ASSERT_TRUE(r.ok()) << r.error->message;
    const nlohmann::json params = run_report_json(r, {}).at("params");
    ASSERT_TRUE(params.at("n").is_number_integer()) << params;
    EXPECT_EQ(params.at("n").get<int64_t>(), 1001);
    EXPECT_EQ(params.at("n").dump(), "1001");
    ASSERT_TRUE(params.at("a").is_number_float()) << params;
    EXPECT_EQ(params.at("a").get<double>(), 2.5);
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
    // Not run, and the check says so in words too (the window shows no verdict then; a script gets why).
    EXPECT_EQ(j.at("check").at("state"), "not_run");
    EXPECT_FALSE(j.at("check").at("text").get<std::string>().empty());
}

TEST(ReportJson, TextOfInvalidUtf8IsReplacedNotThrown) {
    RunReport r;
    r.printf_output = "caf\xe9";
    const std::string text = json_text(run_report_json(r, {}));
    EXPECT_NE(text.find("caf\xef\xbf\xbd"), std::string::npos) << text;
}

}  // namespace
}  // namespace cp
