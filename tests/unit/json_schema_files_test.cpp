// The schema files under docs/schema agree with the code that writes the outputs: each schema_version "const" is
// its output's constant (json_schema_versions.h), and each closed vocabulary ("enum") lists exactly the names the
// code can write, so a new error kind or stage fails here, not in a script that meets it. The outputs themselves
// are checked against the files by tests/cli/json_schemas_test.py.
#include "core/engine/engine_api.h"
#include "core/engine/memory_figures.h"
#include "core/kernel_file/kernel_spec.h"
#include "core/result.h"
#include "core/session/grade.h"
#include "core/session/json_schema_versions.h"
#include "core/session/report_text.h"
#include "core/session/run_report.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include "test_paths.h"

namespace cp {
namespace {

nlohmann::json schema_file(const std::string& name) {
    const std::filesystem::path path = std::filesystem::path(CP_SOURCE_DIR) / "docs" / "schema" / (name + ".schema.json");
    std::ifstream in(path);
    EXPECT_TRUE(in) << "cannot read " << path;
    return in ? nlohmann::json::parse(in) : nlohmann::json::object();
}

// An "enum"'s names, without the null that optional fields allow.
std::set<std::string> names_of(const nlohmann::json& values) {
    std::set<std::string> names;
    for (const auto& v : values)
        if (v.is_string()) names.insert(v.get<std::string>());
    return names;
}

TEST(JsonSchemaFiles, EachSchemaVersionIsItsOutputsConstant) {
    EXPECT_EQ(schema_file("run").at("/$defs/report/properties/schema_version/const"_json_pointer),
              kRunReportSchemaVersion);
    EXPECT_EQ(schema_file("compile").at("/properties/schema_version/const"_json_pointer), kCompileSchemaVersion);
    EXPECT_EQ(schema_file("info").at("/properties/schema_version/const"_json_pointer), kInfoSchemaVersion);
    EXPECT_EQ(schema_file("list").at("/properties/schema_version/const"_json_pointer), kListSchemaVersion);
    EXPECT_EQ(schema_file("sweep").at("/properties/schema_version/const"_json_pointer), kSweepSchemaVersion);
    EXPECT_EQ(schema_file("grade").at("/properties/schema_version/const"_json_pointer), kGradeSchemaVersion);
}

// grade's statuses and error kinds are the code's names.
TEST(JsonSchemaFiles, TheGradeResultsVocabulariesAreTheCodesNames) {
    const nlohmann::json c = schema_file("grade").at("/$defs/student/properties/cases/items/properties"_json_pointer);
    std::set<std::string> statuses;
    for (CaseStatus s : {CaseStatus::Passed, CaseStatus::Wrong, CaseStatus::CompileError, CaseStatus::Fault,
                         CaseStatus::OutOfBounds, CaseStatus::Race, CaseStatus::Hang, CaseStatus::Refused,
                         CaseStatus::SandboxRefusal, CaseStatus::Error})
        statuses.insert(case_status_name(s));
    EXPECT_EQ(names_of(c.at("status").at("enum")), statuses);
    std::set<std::string> verdicts;
    for (SpeedVerdict v : {SpeedVerdict::Faster, SpeedVerdict::Same, SpeedVerdict::Slower}) verdicts.insert(speed_verdict_name(v));
    EXPECT_EQ(names_of(c.at("speed").at("enum")), verdicts);
    std::set<std::string> kinds;
    for (int k = 0; k < kErrorKindCount; ++k) kinds.insert(error_kind_name(ErrorKind(k)));
    EXPECT_EQ(names_of(c.at("error_kind").at("enum")), kinds);
}

TEST(JsonSchemaFiles, TheRunReportsVocabulariesAreTheCodesNames) {
    const nlohmann::json run = schema_file("run");
    const nlohmann::json& report = run.at("/$defs/report/properties"_json_pointer);

    std::set<std::string> kinds;
    for (int k = 0; k < kErrorKindCount; ++k) kinds.insert(error_kind_name(ErrorKind(k)));
    EXPECT_EQ(names_of(report.at("error_kind").at("enum")), kinds);

    std::set<std::string> stages;
    for (RunStage s : {RunStage::None, RunStage::Metadata, RunStage::Resolve, RunStage::Compile, RunStage::Validate,
                       RunStage::Prepare, RunStage::Launch, RunStage::Verify})
        stages.insert(run_stage_name(s));
    EXPECT_EQ(names_of(report.at("/error/oneOf/0/properties/stage/enum"_json_pointer)), stages);

    std::set<std::string> states;
    for (CheckState s : {CheckState::Matches, CheckState::Differs, CheckState::Checking, CheckState::NotChecked,
                         CheckState::NoReference, CheckState::NotRun})
        states.insert(check_state_name(s));
    EXPECT_EQ(names_of(report.at("/check/properties/state/enum"_json_pointer)), states);

    std::set<std::string> expected;
    for (ExpectedOutcome e :
         {ExpectedOutcome::Mismatch, ExpectedOutcome::Fault, ExpectedOutcome::Refused, ExpectedOutcome::Hang})
        expected.insert(expected_outcome_name(e));
    std::set<std::string> expectations = expected;
    expectations.insert(expected_outcome_name(ExpectedOutcome::Undefined));
    EXPECT_EQ(names_of(report.at("expect").at("enum")), expectations);
    // What a run can show is a failure it can be expected to show, or that it verified, failed otherwise or ran.
    std::set<std::string> outcomes = expected;
    outcomes.insert({"verified", "error", "ran"});
    EXPECT_EQ(names_of(report.at("outcome").at("enum")), outcomes);

    EXPECT_EQ(names_of(report.at("/memory/items/properties/space/enum"_json_pointer)),
              (std::set<std::string>{memory_space_name(MemorySpace::Global), memory_space_name(MemorySpace::Shared)}));
    EXPECT_EQ(names_of(report.at("/streams/properties/ops/items/properties/kind/enum"_json_pointer)),
              (std::set<std::string>{stream_op_name(StreamOpKind::H2D), stream_op_name(StreamOpKind::Kernel),
                                     stream_op_name(StreamOpKind::D2H)}));
}

TEST(JsonSchemaFiles, DiagnosticSeveritiesAreTheCodesNames) {
    const std::set<std::string> severities = {severity_name(Severity::Error), severity_name(Severity::Warning),
                                              severity_name(Severity::Note)};
    for (const char* name : {"run", "compile"})
        EXPECT_EQ(names_of(schema_file(name).at("/$defs/diagnostic/properties/severity/enum"_json_pointer)), severities)
            << name;
}

}  // namespace
}  // namespace cp
