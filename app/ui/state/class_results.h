// A graded class in the window (issue 40): File > Open of a `cuda-playground grade` results.json shows its table
// (the Class panel); a click on a student opens their submission with the case they failed first loaded (the
// case's settings as the run's choices) and the error's line marked. Plain state, no ImGui; tested directly.
#pragma once

#include "core/result.h"
#include "core/session/grade.h"
#include "core/session/run_choices.h"

#include <filesystem>
#include <optional>
#include <string>

namespace cp::ui {

// Whether File > Open of `path` means a class's results (a .json file) rather than a kernel, program or script.
bool is_grade_results_file(const std::filesystem::path& path);

// What opening one student's submission loads.
struct SubmissionToOpen {
    std::filesystem::path file;
    std::string case_name;     // the first case not passed; empty: they passed every case (the first is loaded)
    RunChoices choices;        // that case's settings, as the assignment's `grade case` line gives them
    CaseStatus status = CaseStatus::Passed;
    int line = 0;              // the error's line in the submission; 0: none
    std::string message;       // the case's message, for the editor's mark and the console
};

class ClassResults {
public:
    // Reads `path` (a results.json); on an Error nothing loaded before is lost.
    Result<bool> load(const std::filesystem::path& path);
    bool loaded() const { return report_.has_value(); }
    const GradeReport& report() const { return *report_; }
    const std::filesystem::path& path() const { return path_; }

    // Student `index` of the report: their file, the case to load and its choices (the assignment read again
    // from where the results say it is). An Error (kind UserInput or Io) says why it cannot be opened: no file
    // (an empty folder), the file gone, the assignment gone or changed so that the case no longer exists.
    Result<SubmissionToOpen> open(size_t index) const;

    // The student picked last (the panel's highlight); none before a click.
    std::optional<size_t> selected;

private:
    std::optional<GradeReport> report_;
    std::filesystem::path path_;
};

}  // namespace cp::ui
