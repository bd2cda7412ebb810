// The words of a run's result, built once for every front end: the command line prints them after its
// labels, the window shows them in the Output panel, the comparison columns and the console.
#pragma once

#include "core/session/run_report.h"

#include <string>

namespace cp {

// Whose reference a verdict is about: the run's own ("the CPU reference") or a compared variant's ("its").
enum class VerdictOf { Run, Variant };

// What the check showed, as one sentence: "Matches the CPU reference (max error 0)", "Differs from the CPU
// reference: 23 mismatches, max error 1", "Checking against the CPU reference..." (a deferred check still to
// come), "Not checked: shown after step 2 of 3." and why it was not
// (no reference, the reference failed). Empty when the kernel did not run. `with_detail` adds the first
// mismatch to a difference (for front ends that do not list the mismatches themselves).
std::string verdict_text(const RunReport& r, VerdictOf whose = VerdictOf::Run, bool with_detail = true);

// The check's state in one word, the same for the window, the command line and --json's "check" object.
enum class CheckState {
    Matches,      // checked and matching
    Differs,      // checked and wrong
    Checking,     // a deferred check still to come
    NotChecked,   // could have been checked and was not (RunReport::not_checked, or the reference failed)
    NoReference,  // nothing to check against
    NotRun,       // the kernel did not run: there is no output to check
};
CheckState check_state(const RunReport& r);
// "matches", "differs", "checking", "not_checked", "no_reference", "not_run"
const char* check_state_name(CheckState s);
// Why a run is not checked, in words ("re-run after a launch change: press F5 to check"); empty when it is.
std::string not_checked_reason(const RunReport& r);

// The verdict in a few words for a compact column heading ("matches its reference", "WRONG: differs from its
// reference", "checking...", "not checked: press F5", "not checked: no reference"); the full sentence is
// verdict_text. Empty when the kernel did not run.
std::string short_verdict_text(const RunReport& r);

// The memory recording's per-line figures, one line of text each (no trailing newline after the last):
// "line 7   global load     8.0 sectors/req (ideal 4.0)   x3 requests, 23.3 of 32 lanes active".
std::string memory_figures_text(const MemoryRecording& recording);

// A buggy-on-purpose lesson (`expect:`): what it must show and whether it did ("Buggy on purpose: it must fail
// with a mismatch, and it did (failed as expected)."). Empty for other lessons. The `learn:` text is apart.
std::string expected_outcome_text(const RunReport& r);

// What a run redid and what it reused, with why, in one line: "redone: launch (scalar a changed), upload y (reset:
// the kernel can write `y`); reused: compile, upload x". Empty when no stage was reached.
std::string stage_runs_text(const std::vector<StageRun>& stages);

// Why a compile did not build, in one line: its first error diagnostic ("file:line:col: error: ...", with "(and 2
// more errors)" after it when there are more), else the compiler's error message, else "compilation failed". The
// one text of a compile that failed: the run's, a step's, and an extra compile's refusal (trace, memory, counting).
std::string compile_failure_text(const CompileResult& compiled);

// Where the backend's launch call spent its time, in one line (cp_ui_bench, the Timing panel): "in the worker
// 0.800 ms: set-up 0.030, launch calls 0.010, waiting for the GPU 0.740 (kernel 0.058), after 0.020".
// `backend_ms` is LaunchResult::backend_ms; 0 (a backend in this process) says "in the backend" with the phases'
// sum instead. Empty when the phases were not measured (LaunchPhases::measured).
std::string launch_phases_text(double backend_ms, const LaunchPhases& phases);

}  // namespace cp
