// A lesson that is an assignment (`grade ...` lines, kernels/FORMAT.md "Assignments"): the students' copy without
// the hidden cases, and each hidden case as the choices a run takes. The grading itself builds on these.
#pragma once

#include "core/kernel_file/kernel_file.h"
#include "core/result.h"
#include "core/session/run_choices.h"

#include <string>
#include <vector>

namespace cp {

// The file's text without its `grade` lines (every other line as written, the reference kept, so that students
// can check their own runs); what `cuda-playground export --for-students` writes.
std::string students_copy(const KernelFile& assignment);

struct GradeCaseChoices {
    const GradeCase* grade_case;  // into assignment.spec.grade.cases
    RunChoices choices;
};
// Each case's settings applied as `--set` applies them (the same rules and messages). An Error (kind UserInput)
// names the case, its line and the setting a run would refuse.
Result<std::vector<GradeCaseChoices>> grade_case_choices(const KernelFile& assignment);

}  // namespace cp
