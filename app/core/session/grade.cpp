#include "core/session/grade.h"

#include "core/kernel_file/reference_section.h"
#include "core/session/assignment.h"
#include "core/session/report_text.h"
#include "core/session/session.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>

namespace cp {

namespace {

namespace fs = std::filesystem;

// `text` with the characters of [begin, end) replaced by spaces, newlines kept.
void blank(std::string& text, size_t begin, size_t end) {
    for (size_t i = begin; i < end && i < text.size(); ++i)
        if (text[i] != '\n') text[i] = ' ';
}

// The `/*@playground ... */` block of `source`, from its first character to after its `*/`; npos when none.
std::pair<size_t, size_t> header_span(const std::string& source) {
    const size_t open = source.find("/*@playground");
    if (open == std::string::npos) return {std::string::npos, std::string::npos};
    const size_t close = source.find("*/", open + 13);
    return {open, close == std::string::npos ? source.size() : close + 2};
}

CaseStatus status_of(ErrorKind kind) {
    switch (kind) {
        case ErrorKind::Compile:
        case ErrorKind::Metadata:
            return CaseStatus::CompileError;
        case ErrorKind::Fault:
            return CaseStatus::Fault;
        case ErrorKind::OutOfBounds:
            return CaseStatus::OutOfBounds;
        case ErrorKind::Hang:
            return CaseStatus::Hang;
        case ErrorKind::LaunchRefused:
            return CaseStatus::Refused;
        case ErrorKind::SandboxRefusal:
            return CaseStatus::SandboxRefusal;
        default:
            return CaseStatus::Error;
    }
}

}  // namespace

const char* case_status_name(CaseStatus s) {
    switch (s) {
        case CaseStatus::Passed: return "passed";
        case CaseStatus::Wrong: return "wrong";
        case CaseStatus::CompileError: return "compile_error";
        case CaseStatus::Fault: return "fault";
        case CaseStatus::OutOfBounds: return "out_of_bounds";
        case CaseStatus::Hang: return "hang";
        case CaseStatus::Refused: return "refused";
        case CaseStatus::SandboxRefusal: return "sandbox_refusal";
        case CaseStatus::Error: return "error";
    }
    return "error";
}

std::vector<Submission> find_submissions(const fs::path& dir) {
    std::vector<Submission> out;
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
        if (e.is_regular_file(ec) && e.path().extension() == ".cu") {
            out.push_back({e.path().stem().string(), e.path()});
        } else if (e.is_directory(ec)) {
            std::vector<fs::path> files;
            for (const fs::directory_entry& f : fs::directory_iterator(e.path(), ec))
                if (f.is_regular_file(ec) && f.path().extension() == ".cu") files.push_back(f.path());
            out.push_back({e.path().filename().string(), files.size() == 1 ? files.front() : fs::path{}});
        }
    }
    std::sort(out.begin(), out.end(), [](const Submission& a, const Submission& b) { return a.student < b.student; });
    return out;
}

KernelFile graded_file(const KernelFile& assignment, const std::string& submission_source, const fs::path& submission_path) {
    // The student's code: their header and reference blocks blanked, every other character where it was.
    std::string text = without_reference_sections(submission_source);
    const auto [open, close] = header_span(text);
    if (open != std::string::npos) blank(text, open, close);
    // The assignment's header (as the students got it) and reference, after the student's last line.
    const std::string copy = students_copy(assignment);
    const auto [a_open, a_close] = header_span(copy);
    if (!text.empty() && text.back() != '\n') text += '\n';
    text += "\n";
    if (a_open != std::string::npos) text += copy.substr(a_open, a_close - a_open) + "\n";
    const std::string reference = reference_section(copy);
    // Only the reference blocks' lines (the rest of reference_section is blank).
    std::istringstream lines(reference);
    std::string kept;
    bool any = false;
    for (std::string l; std::getline(lines, l);) {
        if (l.find_first_not_of(" \t\r") == std::string::npos) continue;
        kept += l + "\n";
        any = true;
    }
    if (any) text += kept;
    KernelFile f = parse_kernel_source(std::move(text), submission_path);
    if (assignment.spec.grade.tolerance) f.spec.tolerance = *assignment.spec.grade.tolerance;
    return f;
}

StudentResult grade_submission(Engine& engine, const KernelFile& assignment, const Submission& submission) {
    StudentResult out;
    out.student = submission.student;
    out.file = submission.file;
    const GradeSpec& g = assignment.spec.grade;
    auto every_case = [&](CaseStatus status, ErrorKind kind, const std::string& message, int line) {
        for (const GradeCase& c : g.cases) out.cases.push_back(CaseResult{c.name, status, kind, message, line});
    };
    if (submission.file.empty()) {
        every_case(CaseStatus::Error, ErrorKind::UserInput, "no single .cu file in the student's folder", 0);
        return out;
    }
    auto loaded = load_kernel_file(submission.file);  // read as any kernel file is (its size limit included)
    if (!loaded) {
        every_case(CaseStatus::Error, loaded.error().kind, loaded.error().message, 0);
        return out;
    }
    KernelFile file = graded_file(assignment, loaded->source, submission.file);
    if (has_errors(file.diagnostics) || !file.signature) {
        const Diagnostic* first = nullptr;
        for (const Diagnostic& d : file.diagnostics)
            if (d.severity == Severity::Error) { first = &d; break; }
        every_case(CaseStatus::CompileError, ErrorKind::Metadata,
                   first ? first->message : "the kernel the assignment asks for is not in the file", first ? first->line : 0);
        return out;
    }
    auto cases = grade_case_choices(assignment);
    if (!cases) {
        every_case(CaseStatus::Error, cases.error().kind, cases.error().message, 0);
        return out;
    }
    KernelSession session(engine);
    session.set_kernel(std::move(file));
    for (const GradeCaseChoices& c : *cases) {
        CaseResult r;
        r.name = c.grade_case->name;
        session.set_choices(c.choices);
        RunOptions options;
        options.verify = true;
        options.timing.warmup = 0;
        options.timing.repeats = 1;
        const RunReport report = session.run(options);
        if (!report.ok()) {
            r.kind = report.error->kind;
            r.status = status_of(r.kind);
            r.message = report.error->message;
            r.line = report.error_line;
            if (r.status == CaseStatus::CompileError)
                for (const Diagnostic& d : report.diagnostics)
                    if (d.severity == Severity::Error) {
                        r.message = d.message;
                        r.line = d.line;
                        break;
                    }
        } else {
            r.kernel_ms = report.timing.median_ms;
            r.max_error = report.max_abs_error;
            r.mismatches = report.mismatches;
            const CheckState state = check_state(report);
            if (state == CheckState::Matches) {
                r.status = CaseStatus::Passed;
            } else if (state == CheckState::Differs) {
                r.status = CaseStatus::Wrong;
                r.message = report.mismatch_detail;
            } else {
                r.status = CaseStatus::Error;
                r.message = std::string("not checked: ") + check_state_name(state);
            }
        }
        if (r.status == CaseStatus::Passed) ++out.passed;
        out.cases.push_back(std::move(r));
    }
    out.score = g.cases.empty() ? 0 : g.correct_points * double(out.passed) / double(g.cases.size());
    return out;
}

std::string grade_results_json(const GradeReport& report) {
    using nlohmann::json;
    json students = json::array();
    for (const StudentResult& s : report.students) {
        json cases = json::array();
        for (const CaseResult& c : s.cases) {
            json one = {{"case", c.name}, {"status", case_status_name(c.status)}};
            one["error_kind"] = c.status == CaseStatus::Passed || c.status == CaseStatus::Wrong ? json(nullptr)
                                                                                                : json(error_kind_name(c.kind));
            one["message"] = c.message;
            one["line"] = c.line > 0 ? json(c.line) : json(nullptr);
            one["max_error"] = c.max_error;
            one["mismatches"] = c.mismatches;
            one["kernel_ms"] = c.kernel_ms > 0 ? json(c.kernel_ms) : json(nullptr);
            cases.push_back(std::move(one));
        }
        students.push_back({{"student", s.student}, {"file", s.file.string()}, {"passed", s.passed},
                            {"cases", std::move(cases)}, {"score", s.score}});
    }
    json j = {{"schema_version", kGradeSchemaVersion},
              {"assignment", report.assignment},
              {"backend", report.backend},
              {"device", report.device},
              {"cases", report.case_names},
              {"points", {{"correct", report.correct_points}, {"speed", report.speed_points}}},
              // Speed is not graded yet: the speed points are not awarded.
              {"speed_graded", false},
              {"students", std::move(students)}};
    return j.dump(2) + "\n";
}

std::string grade_results_csv(const GradeReport& report) {
    auto quoted = [](const std::string& s) {
        std::string q = "\"";
        for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c == '\n' ? ' ' : c);
        return q + "\"";
    };
    std::string out = "student,score,passed";
    for (const std::string& c : report.case_names) out += "," + quoted(c);
    out += "\n";
    for (const StudentResult& s : report.students) {
        std::ostringstream score;
        score << s.score;
        out += quoted(s.student) + "," + score.str() + "," + std::to_string(s.passed);
        for (const CaseResult& c : s.cases) out += std::string(",") + case_status_name(c.status);
        out += "\n";
    }
    return out;
}

}  // namespace cp
