// Verdict and buggy-on-purpose sentences for the command line and the window (report_text.h).
#include "core/session/report_text.h"

#include "core/text_util.h"

#include <cstdio>

namespace cp {

namespace {

// "; 190,464 of 262,144 elements never written (`edges`)" for a wrong result whose coverage was measured:
// often why it is wrong (a grid too small).
std::string never_written_text(const RunReport& r) {
    std::string text;
    for (const CoverageMap& c : r.coverage)
        if (c.never_written > 0) text += "; " + c.summary() + " (`" + c.buffer + "`)";
    return text;
}

}  // namespace

CheckState check_state(const RunReport& r) {
    if (r.verified == true) return CheckState::Matches;
    if (r.verified == false) return CheckState::Differs;
    if (!r.launched) return CheckState::NotRun;
    if (r.check_pending) return CheckState::Checking;
    if (!r.not_checked.empty() || r.failed_stage == RunStage::Verify) return CheckState::NotChecked;
    return CheckState::NoReference;
}

const char* check_state_name(CheckState s) {
    switch (s) {
        case CheckState::Matches:
            return "matches";
        case CheckState::Differs:
            return "differs";
        case CheckState::Checking:
            return "checking";
        case CheckState::NotChecked:
            return "not_checked";
        case CheckState::NoReference:
            return "no_reference";
        case CheckState::NotRun:
            return "not_run";
    }
    return "not_run";
}

std::string not_checked_reason(const RunReport& r) {
    switch (check_state(r)) {
        case CheckState::NotChecked:
            return !r.not_checked.empty() ? r.not_checked : std::string("the CPU reference failed (see the error)");
        case CheckState::NoReference:
            return "there is no CPU reference";
        case CheckState::NotRun:
            return "the kernel did not run";
        default:
            return "";
    }
}

std::string verdict_text(const RunReport& r, VerdictOf whose, bool with_detail) {
    const std::string reference = r.checked_against_recording
                                      ? (whose == VerdictOf::Run ? "the recorded result" : "its recorded result")
                                      : (whose == VerdictOf::Run ? "the CPU reference" : "its CPU reference");
    char error[64];
    std::snprintf(error, sizeof error, "%g", r.max_abs_error);
    switch (check_state(r)) {
        case CheckState::Matches:
            return "Matches " + reference + " (max error " + error + ")";
        case CheckState::Differs: {
            std::string text = "Differs from " + reference + ": " + std::to_string(r.mismatches) +
                               " mismatches, max error " + error + never_written_text(r);
            if (with_detail && !r.mismatch_detail.empty()) text += ". " + r.mismatch_detail;
            return text;
        }
        case CheckState::NotRun:
            return "";
        case CheckState::Checking:
            return "Checking against " + reference + "...";
        case CheckState::NotChecked:
            if (r.not_checked.empty()) return "Not checked: " + reference + " failed (see the error).";
            return "Not checked: " + r.not_checked + ".";
        case CheckState::NoReference:
            return "Not checked: there is no CPU reference.";
    }
    return "";
}

std::string short_verdict_text(const RunReport& r) {
    switch (check_state(r)) {
        case CheckState::Matches:
            return "matches its reference";
        case CheckState::Differs:
            return "WRONG: differs from its reference";
        case CheckState::Checking:
            return "checking...";
        case CheckState::NoReference:
            return "not checked: no reference";
        case CheckState::NotChecked:
            return is_live_rerun(r.not_checked_why) ? "not checked: press F5" : "not checked (hover: why)";
        case CheckState::NotRun:
            return "";
    }
    return "";
}

std::string expected_outcome_text(const RunReport& r) {
    if (r.expect.empty()) return "";
    if (r.expect == "undefined")
        return "Buggy on purpose: here its result is undefined behaviour" +
               (r.outcome.empty() || r.outcome == "ran" ? std::string(".") : "; this run gave: " + r.outcome + ".");
    const std::string text = "Buggy on purpose: it must fail with " +
                             (r.expect == "refused" ? std::string("a refused launch") : "a " + r.expect);
    if (r.as_expected == true) return text + ", and it did (failed as expected).";
    if (r.as_expected == false)
        return text + ", but the outcome was: " + r.outcome + " (the bug no longer shows as the lesson says).";
    return text + " (not judged: it did not run and check here).";
}

std::string memory_figures_text(const MemoryRecording& recording) {
    std::string out;
    char text[256];
    for (const MemoryFigures& f : recording.figures) {
        if (!out.empty()) out += "\n";
        const std::string where = f.line > 0 ? "line " + std::to_string(f.line) : std::string("line ?");
        const std::string kind = std::string(memory_space_name(f.space)) + (f.store ? " store" : " load");
        std::string figure;
        if (f.space == MemorySpace::Global) {
            std::snprintf(text, sizeof text, "%5.1f sectors/req (ideal %.1f)", f.sectors_per_request(),
                          f.ideal_per_request());
        } else {
            const double per = f.requests ? double(f.bank_conflicts) / double(f.requests) : 0.0;
            if (f.bank_conflicts == 0)
                std::snprintf(text, sizeof text, "no bank conflicts");
            else
                std::snprintf(text, sizeof text, "%5.1f bank conflicts/req", per);
        }
        figure = text;
        std::snprintf(text, sizeof text, "%-9s %-13s %-32s x%llu %s, %.1f of 32 lanes active", where.c_str(),
                      kind.c_str(), figure.c_str(), static_cast<unsigned long long>(f.requests),
                      f.requests == 1 ? "request" : "requests", f.active_lanes_mean());
        out += text;
    }
    return out;
}

std::string stage_runs_text(const std::vector<StageRun>& stages) {
    std::string redone, reused;
    for (const StageRun& s : stages) {
        if (s.reused) {
            reused += (reused.empty() ? "" : ", ") + s.stage;
        } else {
            redone += (redone.empty() ? "" : ", ") + s.stage + (s.reason.empty() ? "" : " (" + s.reason + ")");
        }
    }
    if (redone.empty() && reused.empty()) return "";
    return "redone: " + (redone.empty() ? std::string("nothing") : redone) +
           "; reused: " + (reused.empty() ? std::string("nothing") : reused);
}

std::string compile_failure_text(const CompileResult& compiled) {
    std::string first;
    size_t errors = 0;
    for (const auto& d : compiled.diagnostics) {
        if (d.severity != Severity::Error) continue;
        if (errors++ == 0) first = d.str();
    }
    if (errors > 1) return first + " (and " + count_text(errors - 1, "more error", "more errors") + ")";
    if (errors == 1) return first;
    return compiled.error ? compiled.error->message : "compilation failed";
}

std::string launch_phases_text(double backend_ms, const LaunchPhases& p) {
    if (!p.measured()) return "";
    char text[256];
    std::snprintf(text, sizeof text,
                  "%s %.3f ms: set-up %.3f, launch calls %.3f, waiting for the GPU %.3f (kernel %.3f), after %.3f",
                  backend_ms > 0 ? "in the worker" : "in the backend", backend_ms > 0 ? backend_ms : p.total_ms(),
                  p.setup_ms, p.launch_calls_ms, p.wait_ms, p.kernel_ms, p.after_ms);
    return text;
}

}  // namespace cp
