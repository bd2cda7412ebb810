// The "schema_version" of each JSON output of the command line, one constant per output, each documented by
// its schema under docs/schema/ (tests/cli/json_schemas_test.py checks the real outputs against those files).
#pragma once

namespace cp {

// An output's number MUST go up when one of its fields is removed, renamed, re-typed or changes meaning, and the
// "const" of "schema_version" in its schema file with it: scripts check the number before they read the rest.
// A new field needs no bump, but it does need its entry in the schema (the test refuses an undocumented one).
inline constexpr int kRunReportSchemaVersion = 1;  // run --json: docs/schema/run.schema.json
inline constexpr int kCompileSchemaVersion = 1;    // compile --json: docs/schema/compile.schema.json
inline constexpr int kInfoSchemaVersion = 1;       // info --json: docs/schema/info.schema.json
inline constexpr int kListSchemaVersion = 1;       // list --json: docs/schema/list.schema.json
inline constexpr int kSweepSchemaVersion = 1;      // sweep --json: docs/schema/sweep.schema.json
inline constexpr int kGradeSchemaVersion = 2;      // grade's results.json (and --json): docs/schema/grade.schema.json

}  // namespace cp
