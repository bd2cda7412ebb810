// The verdict and buggy-on-purpose sentences both front ends print (core/session/report_text.h), for every
// state a run's check can end in.
#include "core/session/report_text.h"

#include "core/session/report_json.h"
#include "core/text_util.h"

#include <gtest/gtest.h>

#include <cstdio>

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

TEST(ReportText, EveryRunHasOneCheckStateAndTheJsonCarriesIt) {
    struct Case {
        RunReport r;
        CheckState state;
        const char* name;
        const char* reason;  // not_checked_reason, "" when checked
    };
    RunReport matches = launched(), differs = launched(), checking = launched(), skipped = launched(),
              failed = launched(), none = launched();
    matches.verified = true;
    differs.verified = false;
    checking.check_pending = true;
    skipped.not_checked = "re-run after a launch change: press F5 to check";
    skipped.not_checked_why = NotCheckedWhy::AfterLaunchChange;
    failed.failed_stage = RunStage::Verify;
    const Case cases[] = {
        {matches, CheckState::Matches, "matches", ""},
        {differs, CheckState::Differs, "differs", ""},
        {checking, CheckState::Checking, "checking", ""},
        {skipped, CheckState::NotChecked, "not_checked", "re-run after a launch change: press F5 to check"},
        {failed, CheckState::NotChecked, "not_checked", "the CPU reference failed (see the error)"},
        {none, CheckState::NoReference, "no_reference", "there is no CPU reference"},
        {RunReport{}, CheckState::NotRun, "not_run", "the kernel did not run"},
    };
    for (const Case& c : cases) {
        EXPECT_EQ(check_state(c.r), c.state) << c.name;
        EXPECT_STREQ(check_state_name(check_state(c.r)), c.name);
        EXPECT_EQ(not_checked_reason(c.r), c.reason) << c.name;
        const nlohmann::json j = run_report_json(c.r, {});
        ASSERT_TRUE(j.contains("check")) << c.name;
        EXPECT_EQ(j["check"]["state"], c.name);
        // The window's verdict, word for word; a run that did not run has none there, and the JSON says why.
        if (c.state == CheckState::NotRun)
            EXPECT_FALSE(j["check"]["text"].get<std::string>().empty()) << c.name;
        else
            EXPECT_EQ(j["check"]["text"], verdict_text(c.r, VerdictOf::Run, false)) << c.name;
        EXPECT_EQ(j["check"].value("reason", ""), c.reason) << c.name;
        EXPECT_EQ(j["schema_version"], 1) << "a new key, no meaning changed: no bump (README)";
        // Every state that ran is said in words, in the column heading too.
        if (c.state != CheckState::NotRun) {
            EXPECT_FALSE(verdict_text(c.r).empty()) << c.name;
            EXPECT_FALSE(short_verdict_text(c.r).empty()) << c.name;
        }
    }
    EXPECT_EQ(short_verdict_text(skipped), "not checked: press F5");
    EXPECT_EQ(short_verdict_text(checking), "checking...");
}

TEST(ReportText, TheHeadingSaysPressF5ForTheWindowsLiveReRunsWhateverTheWords) {
    // The reason decides, not the sentence: words that say "press F5" for a run F5 does not check (the command
    // line's --no-verify, a step cut-off), and a live re-run worded without them.
    struct Case {
        NotCheckedWhy why;
        const char* words;
        bool press_f5;
    };
    const Case cases[] = {
        {NotCheckedWhy::EveryFrame, "re-run every frame", true},
        {NotCheckedWhy::AfterEdit, "re-run after an edit", true},
        {NotCheckedWhy::AfterLaunchChange, "re-run after a launch change", true},
        {NotCheckedWhy::AfterInputsChange, "re-run after a change of the inputs", true},
        {NotCheckedWhy::Skipped, "--no-verify skipped it; press F5 in a window", false},
        {NotCheckedWhy::StoppedEarly, "shown after step 1 of 3 (press F5 does not help)", false},
    };
    for (const Case& c : cases) {
        RunReport r = launched();
        r.not_checked = c.words;
        r.not_checked_why = c.why;
        ASSERT_EQ(check_state(r), CheckState::NotChecked) << c.words;
        EXPECT_EQ(is_live_rerun(c.why), c.press_f5) << c.words;
        EXPECT_EQ(short_verdict_text(r), c.press_f5 ? "not checked: press F5" : "not checked (hover: why)") << c.words;
        EXPECT_EQ(not_checked_reason(r), c.words);  // the words are still the caller's
    }
}

TEST(ReportText, AWrongResultSaysHowManyElementsWereNeverWritten) {
    RunReport r = launched();
    r.verified = false;
    r.mismatches = 190464;
    r.max_abs_error = 255;
    CoverageMap c;
    c.buffer = "edges";
    c.elements = 262144;
    c.never_written = 190464;
    r.coverage.push_back(c);
    EXPECT_EQ(verdict_text(r, VerdictOf::Run, false),
              "Differs from the CPU reference: 190464 mismatches, max error 255; 190,464 of 262,144 elements never "
              "written (`edges`)");
    const nlohmann::json j = run_report_json(r, {});
    EXPECT_EQ(j["check"]["state"], "differs");
    EXPECT_EQ(j["check"]["never_written"], 190464u);
    r.coverage[0].never_written = 0;  // all written: the difference is the kernel's arithmetic
    EXPECT_EQ(verdict_text(r, VerdictOf::Run, false),
              "Differs from the CPU reference: 190464 mismatches, max error 255");
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

// The launch's phases in plain words: each figure in its place (a swap shows), the worker's own time first, and
// nothing where a backend did not measure them.
TEST(ReportText, LaunchPhasesSayWhereTheWorkersTimeWent) {
    LaunchPhases p;
    p.setup_ms = 0.031;
    p.launch_calls_ms = 0.012;
    p.wait_ms = 0.743;
    p.kernel_ms = 0.058;
    p.after_ms = 0.024;
    EXPECT_EQ(launch_phases_text(0.8, p),
              "in the worker 0.800 ms: set-up 0.031, launch calls 0.012, waiting for the GPU 0.743 (kernel 0.058), "
              "after 0.024");
    // In this process (no worker's clock around the call): the phases' own sum.
    const double sum = 0.031 + 0.012 + 0.743 + 0.024;
    char expected_total[32];
    std::snprintf(expected_total, sizeof expected_total, "in the backend %.3f ms: ", sum);
    EXPECT_EQ(launch_phases_text(0, p).rfind(expected_total, 0), 0u) << launch_phases_text(0, p);
    EXPECT_EQ(launch_phases_text(0.8, LaunchPhases{}), "");
}

}  // namespace
}  // namespace cp

// Bandwidth in units that keep its figures: a CPU-emulated multiply's 11 MB/s was shown as "0.0 GB/s".
TEST(ReportText, BandwidthKeepsItsFiguresAtAnySize) {
    EXPECT_EQ(cp::bandwidth_text(812.44), "812.4 GB/s");
    EXPECT_EQ(cp::bandwidth_text(1.0), "1.0 GB/s");
    EXPECT_EQ(cp::bandwidth_text(0.011), "11.0 MB/s");
    EXPECT_EQ(cp::bandwidth_text(0.0004), "400.0 kB/s");
    EXPECT_EQ(cp::bandwidth_text(0), "0.0 GB/s");
}
