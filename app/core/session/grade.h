// Grading a class (issue 40): each student's submission (a kernel file of the assignment's students' copy) run on
// the assignment's hidden cases with the assignment's own header and reference, and the results as values and as
// results.json / results.csv. A submission that does not compile, faults, hangs or is wrong gets that result and
// never stops the others.
#pragma once

#include "core/engine/engine.h"
#include "core/kernel_file/kernel_file.h"
#include "core/result.h"
#include "core/session/json_schema_versions.h"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace cp {

struct Submission {
    std::string student;          // the file's stem, or the student's folder
    std::filesystem::path file;
};
// The submissions in `dir`: each `.cu` file in it (the student is its name without `.cu`), and each folder that
// holds one `.cu` file (the student is the folder's name). Sorted by student; a folder with none or several is
// returned with an empty file (graded as "no submission" / "several files").
std::vector<Submission> find_submissions(const std::filesystem::path& dir);

// The file a submission is graded as: the student's code at its own lines (so messages name the student's lines),
// the student's header and reference blanked, and the assignment's header (without its grade lines) and reference
// after the student's last line. Its tolerance is the assignment's `grade tolerance`.
KernelFile graded_file(const KernelFile& assignment, const std::string& submission_source,
                       const std::filesystem::path& submission_path);

enum class CaseStatus { Passed, Wrong, CompileError, Fault, OutOfBounds, Hang, Refused, SandboxRefusal, Error };
const char* case_status_name(CaseStatus s);  // "passed", "wrong", "compile_error", ...

struct CaseResult {
    std::string name;
    CaseStatus status = CaseStatus::Error;
    ErrorKind kind = ErrorKind::Unknown;  // of the error, when there was one
    std::string message;                  // the first thing the student needs: the error or the first mismatch
    int line = 0;                         // the submission's line it points at; 0: none
    double max_error = 0;
    uint64_t mismatches = 0;
    double kernel_ms = 0;                 // median
};
struct StudentResult {
    std::string student;
    std::filesystem::path file;
    std::vector<CaseResult> cases;
    int passed = 0;
    double score = 0;  // correctness points earned (out of the assignment's correct points)
};
struct GradeReport {
    std::string assignment, backend, device;
    int correct_points = 100, speed_points = 0;
    std::vector<std::string> case_names;
    std::vector<StudentResult> students;
};

// Runs one submission on every case of `assignment` on `engine`. `assignment` must be usable and an assignment.
StudentResult grade_submission(Engine& engine, const KernelFile& assignment, const Submission& submission);

// Every submission, as many at a time as `engines` (one engine each, a thread per engine past the first, which
// runs on the caller's); results in the submissions' order. `done` (may be empty) is called as each ends, from
// the thread that graded it, one call at a time.
std::vector<StudentResult> grade_class(const std::vector<Engine*>& engines, const KernelFile& assignment,
                                       const std::vector<Submission>& submissions,
                                       const std::function<void(const StudentResult&)>& done = {});

// A score or a time for people: "53.33", "80", "0.1758".
std::string score_text(double v);

std::string grade_results_json(const GradeReport& report);
std::string grade_results_csv(const GradeReport& report);

// Static pages a teacher can hand back: the class page (index.html: a table by student, sortable by any column
// with a click) and one page per student (each case's result, message and the lines of the submission around the
// error), as file name -> content. Every name, message and line of a submission is HTML-escaped.
std::vector<std::pair<std::string, std::string>> grade_results_html(const GradeReport& report);
// The page of report.students[i]: "students/NNN.html" (numbered, so that no student's name becomes a path).
std::string student_page_name(size_t i);

}  // namespace cp
