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

// A buggy-on-purpose lesson (`expect:`): what it must show and whether it did ("Buggy on purpose: it must fail
// with a mismatch, and it did (failed as expected)."). Empty for other lessons. The `learn:` text is apart.
std::string expected_outcome_text(const RunReport& r);

}  // namespace cp
