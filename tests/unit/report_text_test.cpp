// The verdict and buggy-on-purpose sentences both front ends print (core/session/report_text.h), for every
// state a run's check can end in.
#include "core/session/report_text.h"

#include <gtest/gtest.h>

namespace cp {
namespace {

RunReport launched() {
    RunReport r;
    r.launched = true;
    return r;
}

TEST(ReportText, VerdictForEachWayACheckEnds) {
    RunReport r = launched();
    r.verified = true;
    r.max_abs_error = 0.25;
    EXPECT_EQ(verdict_text(r), "Matches the CPU reference (max error 0.25)");
    EXPECT_EQ(verdict_text(r, VerdictOf::Variant), "Matches its CPU reference (max error 0.25)");

    r.verified = false;
    r.mismatches = 23;
    r.max_abs_error = 1;
    r.mismatch_detail = "first at c[999]";
    EXPECT_EQ(verdict_text(r), "Differs from the CPU reference: 23 mismatches, max error 1. first at c[999]");
    EXPECT_EQ(verdict_text(r, VerdictOf::Variant, false), "Differs from its CPU reference: 23 mismatches, max error 1");

    r = launched();
    r.not_checked = "shown after step 2 of 3";
    EXPECT_EQ(verdict_text(r), "Not checked: shown after step 2 of 3.");
    r = launched();
    r.failed_stage = RunStage::Verify;
    EXPECT_EQ(verdict_text(r), "Not checked: the CPU reference failed (see the error).");
    EXPECT_EQ(verdict_text(launched()), "Not checked: there is no CPU reference.");
    EXPECT_EQ(verdict_text(RunReport{}), "");  // nothing ran: nothing to say about a check
}

TEST(ReportText, BuggyOnPurposeSaysWhatItMustShowAndWhetherItDid) {
    RunReport r = launched();
    EXPECT_EQ(expected_outcome_text(r), "");  // an ordinary lesson
    r.expect = "mismatch";
    r.as_expected = true;
    EXPECT_EQ(expected_outcome_text(r),
              "Buggy on purpose: it must fail with a mismatch, and it did (failed as expected).");
    r.as_expected = false;
    r.outcome = "verified";
    EXPECT_EQ(expected_outcome_text(r),
              "Buggy on purpose: it must fail with a mismatch, but the outcome was: verified "
              "(the bug no longer shows as the lesson says).");
    r.expect = "refused";
    r.as_expected.reset();
    EXPECT_EQ(expected_outcome_text(r),
              "Buggy on purpose: it must fail with a refused launch (not judged: it did not run and check here).");
}

}  // namespace
}  // namespace cp
