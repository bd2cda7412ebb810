#include "ui/state/class_results.h"

#include "core/session/assignment.h"

#include <fstream>
#include <sstream>

namespace cp::ui {

namespace fs = std::filesystem;

bool is_grade_results_file(const fs::path& path) { return path.extension() == ".json"; }

Result<bool> ClassResults::load(const fs::path& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return make_error(ErrorKind::Io, "could not read " + path.string());
    std::ostringstream text;
    text << f.rdbuf();
    auto read = read_grade_results(text.str());
    if (!read) {
        Error e = read.error();
        e.message = path.filename().string() + ": " + e.message;
        return e;
    }
    report_ = std::move(*read);
    path_ = path;
    selected.reset();
    return true;
}

Result<SubmissionToOpen> ClassResults::open(size_t index) const {
    if (!report_ || index >= report_->students.size()) return make_error(ErrorKind::UserInput, "no such student");
    const StudentResult& s = report_->students[index];
    if (s.file.empty())
        return make_error(ErrorKind::UserInput, s.student + " handed in no single .cu file: there is nothing to open");
    // Relative paths in the results are from where `grade` ran; try beside the results too.
    fs::path file = s.file;
    std::error_code ec;
    if (!fs::exists(file, ec) && file.is_relative() && fs::exists(path_.parent_path() / file, ec)) file = path_.parent_path() / file;
    if (!fs::exists(file, ec))
        return make_error(ErrorKind::Io, s.student + "'s submission " + s.file.string() + " is no longer there");
    SubmissionToOpen out;
    out.file = file;
    const CaseResult* failed = nullptr;
    for (const CaseResult& c : s.cases)
        if (c.status != CaseStatus::Passed) {
            failed = &c;
            break;
        }
    const CaseResult* shown = failed ? failed : (s.cases.empty() ? nullptr : &s.cases.front());
    if (!shown) return out;
    out.case_name = failed ? failed->name : "";
    out.status = shown->status;
    out.line = shown->line;
    out.message = shown->message;
    // The case's settings, from the assignment's own `grade case` line.
    fs::path assignment_path = report_->assignment;
    if (!fs::exists(assignment_path, ec) && assignment_path.is_relative())
        assignment_path = path_.parent_path() / assignment_path;
    auto assignment = load_kernel_file(assignment_path);
    if (!assignment)
        return make_error(ErrorKind::Io, "the assignment " + report_->assignment + " could not be read again (" +
                                             assignment.error().message + "): its cases' settings are there");
    auto cases = grade_case_choices(*assignment);
    if (!cases) return cases.error();
    for (const GradeCaseChoices& c : *cases)
        if (c.grade_case->name == shown->name) {
            out.choices = c.choices;
            return out;
        }
    return make_error(ErrorKind::UserInput, "the assignment " + report_->assignment + " no longer has the case `" +
                                                shown->name + "`: grade the class again");
}

}  // namespace cp::ui
