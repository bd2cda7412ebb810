// Workspace: Sanitize. The request becomes a job for the runner (one run on a fresh backend under
// compute-sanitizer, core/session/sanitize.h); its findings go to the Launch panel's list, the console and
// the editor's lines, which keep them until the text changes.
#include "ui/workspace.h"

#include <filesystem>

namespace cp::ui {

bool Workspace::request_sanitize(const std::string& tool) {
    if (!is_sanitizer_tool(tool)) {
        console_.add(LogKind::Error, "Sanitize: there is no tool `" + tool + "`; the tools: memcheck, racecheck, "
                                     "synccheck, initcheck");
        return false;
    }
    sanitize_.tool = tool;
    if (!sanitize_.unavailable.empty()) {
        sanitize_.last_tool = tool;
        sanitize_.failed = true;
        sanitize_.findings.clear();
        sanitize_.summary = sanitize_.unavailable;
        console_.add(LogKind::Warning, sanitize_.unavailable);
        return false;
    }
    if (!doc()) {
        console_.add(LogKind::Warning, "Sanitize: open a kernel first");
        return false;
    }
    sanitize_.requested = true;
    return true;
}

void Workspace::submit_sanitize() {
    sanitize_.requested = false;
    if (!doc()) return;
    RunJob job = job_from_inputs();
    job.sanitize_tool = sanitize_.tool;
    // One launch without warm-up: under the sanitizer every launch is many times slower, and one shows it all.
    job.options.timing = TimingOptions{0, 1, false};
    job.options.verify = true;
    job.options.read_back = true;
    job.options.coverage = false;
    job.options.coverage_when_warned = false;
    job.options.trace = false;
    sanitize_.running = true;
    sanitize_.last_tool = sanitize_.tool;
    sanitizer_marks_.clear();
    sanitizer_marks_revision_ = doc()->revision();
    sanitizer_marks_path_ = files_.parsed_path();
    // Over --remote, on the server: a second link to it (`worker --stdio --sanitize TOOL`, ServerConnection::sanitized_factory).
    const std::string where = connection_.link().remote() ? " on the server `" + connection_.link().prefix() + "`" : "";
    console_.add(LogKind::Info, "Sanitize: running " + doc()->shown_path().filename().string() +
                                    " once under compute-sanitizer --tool " + sanitize_.tool + where + "...");
    runner_->submit(std::move(job));
}

void Workspace::apply_sanitized(Result<SanitizedRun> result) {
    sanitize_.running = false;
    sanitize_.findings.clear();
    sanitizer_marks_.clear();
    const std::string tool = sanitize_.last_tool;
    if (!result) {
        sanitize_.failed = true;
        sanitize_.summary = tool + " could not run: " + result.error().message;
        console_.add(LogKind::Error, "Sanitize (" + tool + "): " + result.error().full());
        merge_sanitizer_marks();
        return;
    }
    const SanitizedRun& s = *result;
    const RunReport& r = s.report;
    sanitize_.findings = s.summary.findings;
    sanitize_.failed = false;
    const size_t n = s.summary.findings.size();
    if (!r.launched && r.error && n == 0) {
        sanitize_.failed = true;
        sanitize_.summary = tool + ": the kernel did not run: " + run_failure_text(r);
    } else if (s.summary.reported_errors < 0 && n == 0) {
        sanitize_.failed = true;
        sanitize_.summary = tool + ": compute-sanitizer did not finish its report (was the worker stopped?)";
    } else if (n == 0) {
        sanitize_.summary = tool + ": no errors found";
    } else {
        sanitize_.summary = tool + ": " + std::to_string(n) + (n == 1 ? " finding" : " findings");
    }
    console_.add(n == 0 && !sanitize_.failed ? LogKind::Info : LogKind::Error, "Sanitize: " + sanitize_.summary);

    // A finding in the open file is marked on its line; one in an included header is only listed.
    const std::string own_name = std::filesystem::path(sanitizer_marks_path_).filename().string();
    int first_line = 0;
    for (const SanitizerFinding& f : s.summary.findings) {
        console_.add(LogKind::Error, "  " + f.message());
        if (f.line <= 0) continue;
        if (!f.file.empty() && std::filesystem::path(f.file).filename().string() != own_name) continue;
        sanitizer_marks_.push_back(Diagnostic{sanitizer_marks_path_, f.line, 0, Severity::Error,
                                              tool + ": " + f.message(), DiagnosticOrigin::Sanitizer});
        if (first_line == 0) first_line = f.line;
    }
    merge_sanitizer_marks();
    if (first_line > 0 && doc() && doc()->revision() == sanitizer_marks_revision_) {
        compile_status_.reveal_line = first_line;
        ++compile_status_.reveal_serial;
    }
    show_panel("Console");
}

void Workspace::merge_sanitizer_marks() {
    compile_status_.diagnostics = run_diagnostics_;
    if (!doc() || doc()->revision() != sanitizer_marks_revision_ || files_.parsed_path() != sanitizer_marks_path_) {
        sanitizer_marks_.clear();  // found in another text: the lines may have moved
        return;
    }
    compile_status_.diagnostics.insert(compile_status_.diagnostics.end(), sanitizer_marks_.begin(), sanitizer_marks_.end());
}

}  // namespace cp::ui
