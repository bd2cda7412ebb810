#include "core/session/assignment.h"

#include <algorithm>

namespace cp {

std::string students_copy(const KernelFile& assignment) {
    const std::vector<int>& hidden = assignment.spec.grade.lines;
    std::string out;
    out.reserve(assignment.source.size());
    int line = 1;
    size_t start = 0;
    while (start < assignment.source.size()) {
        size_t end = assignment.source.find('\n', start);
        const size_t next = end == std::string::npos ? assignment.source.size() : end + 1;
        if (std::find(hidden.begin(), hidden.end(), line) == hidden.end())
            out.append(assignment.source, start, next - start);
        start = next;
        ++line;
    }
    return out;
}

Result<std::vector<GradeCaseChoices>> grade_case_choices(const KernelFile& assignment) {
    std::vector<GradeCaseChoices> out;
    for (const GradeCase& c : assignment.spec.grade.cases) {
        GradeCaseChoices one{&c, {}};
        one.choices.seed = c.seed;
        for (const auto& [name, value] : c.sets) {
            if (auto ok = apply_set(assignment, one.choices, name, value); !ok) {
                Error e = ok.error();
                if (e.kind == ErrorKind::Unknown) e.kind = ErrorKind::UserInput;
                e.message = assignment.path.filename().string() + ":" + std::to_string(c.line) + ": case `" + c.name +
                            "`: " + e.message;
                return e;
            }
        }
        out.push_back(std::move(one));
    }
    return out;
}

}  // namespace cp
