#include "core/session/grade.h"

#include "core/kernel_file/reference_section.h"
#include "core/session/assignment.h"
#include "core/session/report_text.h"
#include "core/session/session.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>
#include <fstream>
#include <sstream>

namespace cp {

namespace {

namespace fs = std::filesystem;

// `text` with the characters of [begin, end) replaced by spaces, newlines kept.
void blank(std::string& text, size_t begin, size_t end) {
    for (size_t i = begin; i < end && i < text.size(); ++i)
        if (text[i] != '\n') text[i] = ' ';
}

// The `/*@playground ... */` block of `source`, from its first character to after its `*/` (to the end when never
// closed); npos when none.
std::pair<size_t, size_t> header_span(const std::string& source) {
    const MetadataHeaderSpan span = find_metadata_header(source);
    if (!span.found()) return {std::string::npos, std::string::npos};
    return {span.open, span.close == std::string::npos ? source.size() : span.close + 2};
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
    for (std::string l; std::getline(lines, l);)
        if (l.find_first_not_of(" \t\r") != std::string::npos) text += l + "\n";
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

std::vector<StudentResult> grade_class(const std::vector<Engine*>& engines, const KernelFile& assignment,
                                       const std::vector<Submission>& submissions,
                                       const std::function<void(const StudentResult&)>& done) {
    std::vector<StudentResult> results(submissions.size());
    std::atomic<size_t> next{0};
    std::mutex done_lock;
    auto work = [&](Engine& engine) {
        for (size_t i = next++; i < submissions.size(); i = next++) {
            results[i] = grade_submission(engine, assignment, submissions[i]);
            if (done) {
                std::lock_guard<std::mutex> hold(done_lock);
                done(results[i]);
            }
        }
    };
    std::vector<std::thread> threads;
    for (size_t j = 1; j < engines.size(); ++j) threads.emplace_back(work, std::ref(*engines[j]));
    if (!engines.empty()) work(*engines.front());
    for (std::thread& t : threads) t.join();
    return results;
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

namespace {

std::string html_escaped(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

const char* kStyle = R"(<style>
body { font-family: sans-serif; margin: 2em; }
table { border-collapse: collapse; }
th, td { border: 1px solid #999; padding: 0.3em 0.6em; text-align: left; }
th { background: #eee; cursor: pointer; }
.passed { background: #d8f0d8; } .wrong, .compile_error, .fault, .out_of_bounds, .hang, .refused,
.sandbox_refusal, .error { background: #f6d6d6; }
pre { background: #f6f6f6; padding: 0.6em; } .here { background: #ffe08a; }
</style>
)";

// Sorts the table by the clicked column (numbers as numbers), the other way on a second click.
const char* kSortScript = R"(<script>
document.querySelectorAll("th").forEach((th, col) => th.addEventListener("click", () => {
  const body = th.closest("table").tBodies[0];
  const up = th.dataset.up !== "1"; th.dataset.up = up ? "1" : "0";
  const key = r => { const t = r.cells[col].innerText; const n = parseFloat(t); return isNaN(n) ? t : n; };
  [...body.rows].sort((a, b) => (key(a) > key(b) ? 1 : key(a) < key(b) ? -1 : 0) * (up ? 1 : -1))
    .forEach(r => body.appendChild(r));
}));
</script>
)";

}  // namespace

std::string score_text(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.4g", v);
    return b;
}

std::string student_page_name(size_t i) {
    char b[64];
    std::snprintf(b, sizeof b, "students/%03zu.html", i + 1);
    return b;
}

std::vector<std::pair<std::string, std::string>> grade_results_html(const GradeReport& report) {
    std::vector<std::pair<std::string, std::string>> pages;
    const std::string title = "Results of " + fs::path(report.assignment).filename().string();
    std::string index = "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>" + html_escaped(title) +
                        "</title>\n" + kStyle + "</head><body>\n<h1>" + html_escaped(title) + "</h1>\n<p>" +
                        std::to_string(report.students.size()) + " submissions, " +
                        std::to_string(report.case_names.size()) + " hidden cases, on " + html_escaped(report.device) +
                        " (" + html_escaped(report.backend) + "). Score: correct points out of " +
                        std::to_string(report.correct_points) +
                        (report.speed_points > 0 ? " (the " + std::to_string(report.speed_points) +
                                                       " speed points are not graded yet)"
                                                 : std::string()) +
                        ". Click a column to sort by it.</p>\n<table>\n<thead><tr><th>student</th><th>score</th><th>passed</th>";
    for (const std::string& c : report.case_names) index += "<th>" + html_escaped(c) + "</th>";
    index += "<th>kernel ms (median of the cases)</th></tr></thead>\n<tbody>\n";
    for (size_t i = 0; i < report.students.size(); ++i) {
        const StudentResult& s = report.students[i];
        std::vector<double> times;
        for (const CaseResult& c : s.cases)
            if (c.kernel_ms > 0) times.push_back(c.kernel_ms);
        std::sort(times.begin(), times.end());
        index += "<tr><td><a href=\"" + student_page_name(i) + "\">" + html_escaped(s.student) + "</a></td><td>" +
                 score_text(s.score) + "</td><td>" + std::to_string(s.passed) + "</td>";
        for (const CaseResult& c : s.cases)
            index += std::string("<td class=\"") + case_status_name(c.status) + "\">" + case_status_name(c.status) + "</td>";
        index += "<td>" + (times.empty() ? std::string("-") : score_text(times[times.size() / 2])) + "</td></tr>\n";

        // The student's page.
        std::string page = "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>" + html_escaped(s.student) +
                           ": " + html_escaped(title) + "</title>\n" + kStyle + "</head><body>\n<p><a href=\"../index.html\">" +
                           html_escaped(title) + "</a></p>\n<h1>" + html_escaped(s.student) + "</h1>\n<p>" +
                           std::to_string(s.passed) + " of " + std::to_string(s.cases.size()) + " cases passed: " +
                           score_text(s.score) + " of " + std::to_string(report.correct_points) + " points.</p>\n";
        std::string source;
        if (!s.file.empty()) {
            std::ifstream f(s.file, std::ios::binary);
            std::ostringstream text;
            text << f.rdbuf();
            source = text.str();
        }
        std::vector<std::string> lines;
        for (std::istringstream in(source); std::getline(in, lines.emplace_back());) {
        }
        for (const CaseResult& c : s.cases) {
            page += "<h2 class=\"" + std::string(case_status_name(c.status)) + "\">" + html_escaped(c.name) + ": " +
                    case_status_name(c.status) + "</h2>\n";
            if (!c.message.empty()) page += "<p>" + html_escaped(c.message) + "</p>\n";
            if (c.line > 0 && size_t(c.line) <= lines.size()) {
                page += "<pre>";
                for (int l = std::max(1, c.line - 3); l <= std::min(int(lines.size()), c.line + 3); ++l) {
                    const std::string text = std::to_string(l) + "  " + html_escaped(lines[size_t(l - 1)]);
                    page += l == c.line ? "<span class=\"here\">" + text + "</span>\n" : text + "\n";
                }
                page += "</pre>\n";
            }
            if (c.status == CaseStatus::Passed || c.status == CaseStatus::Wrong)
                page += "<p>largest error " + score_text(c.max_error) + ", kernel " + score_text(c.kernel_ms) + " ms</p>\n";
        }
        page += "</body></html>\n";
        pages.emplace_back(student_page_name(i), std::move(page));
    }
    index += "</tbody></table>\n" + std::string(kSortScript) + "</body></html>\n";
    pages.insert(pages.begin(), {"index.html", std::move(index)});
    return pages;
}

}  // namespace cp
