// Verdict and buggy-on-purpose sentences for the command line and the window (report_text.h).
#include "core/session/report_text.h"

#include <cstdio>

namespace cp {

std::string verdict_text(const RunReport& r, VerdictOf whose, bool with_detail) {
    const std::string reference = whose == VerdictOf::Run ? "the CPU reference" : "its CPU reference";
    char error[64];
    std::snprintf(error, sizeof error, "%g", r.max_abs_error);
    if (r.verified == true) return "Matches " + reference + " (max error " + error + ")";
    if (r.verified == false) {
        std::string text =
            "Differs from " + reference + ": " + std::to_string(r.mismatches) + " mismatches, max error " + error;
        if (with_detail && !r.mismatch_detail.empty()) text += ". " + r.mismatch_detail;
        return text;
    }
    if (!r.launched) return "";
    if (r.check_pending) return "Checking against " + reference + "...";
    if (!r.not_checked.empty()) return "Not checked: " + r.not_checked + ".";
    if (r.failed_stage == RunStage::Verify) return "Not checked: " + reference + " failed (see the error).";
    return "Not checked: there is no CPU reference.";
}

std::string expected_outcome_text(const RunReport& r) {
    if (r.expect.empty()) return "";
    const std::string text = "Buggy on purpose: it must fail with " +
                             (r.expect == "refused" ? std::string("a refused launch") : "a " + r.expect);
    if (r.as_expected == true) return text + ", and it did (failed as expected).";
    if (r.as_expected == false)
        return text + ", but the outcome was: " + r.outcome + " (the bug no longer shows as the lesson says).";
    return text + " (not judged: it did not run and check here).";
}

}  // namespace cp
