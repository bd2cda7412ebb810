// cp_grade_bench: grading speed (issue 40; a benchmark that prints, asserts nothing). A made-up class of N
// submissions of tests/data/grade/vector_add_assignment.cu (its students' copy with the kernel's line changed: three
// in four right, the others without a bounds check or with a wrong sum) graded on its hidden cases with 1 and with
// J engines at a time. Prints submissions per minute and, per submission, the wall time beside the kernel's own
// time (the cases' median kernel times summed): what grading costs on top of the students' code. Each with the
// assignment's checks off and on (`grade sanitize`: compute-sanitizer's memcheck and racecheck on a GPU, the
// reversed and shuffled thread orders on the CPU backend).
// usage: cp_grade_bench [--students N] [--jobs J] [--backend cpu|cuda|auto] [--sanitize no|yes|both]
#include "core/session/assignment.h"
#include "core/session/backend_setup.h"
#include "core/session/grade.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <unistd.h>
#include <fstream>
#include <string>
#include <vector>

#include "test_paths.h"

using namespace cp;
namespace fs = std::filesystem;

int main(int argc, char** argv) {
    int students = 20, jobs = 2;
    std::string backend = "auto", sanitize = "both";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--students")) students = std::max(1, std::atoi(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--jobs")) jobs = std::max(1, std::atoi(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--backend")) backend = argv[i + 1];
        else if (!std::strcmp(argv[i], "--sanitize")) sanitize = argv[i + 1];
    }
    auto assignment = load_kernel_file(fs::path(CP_TEST_DATA_DIR) / "grade" / "vector_add_assignment.cu");
    if (!assignment || !assignment->usable()) {
        std::printf("the assignment does not load\n");
        return 1;
    }
    const fs::path dir = fs::temp_directory_path() / ("cp-grade-bench-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string copy = students_copy(*assignment);
    const std::string body = "    if (i < n) c[i] = a[i] + b[i];";
    const char* variants[] = {body.c_str(), body.c_str(), body.c_str(), "    c[i] = a[i] + b[i];", body.c_str(),
                              body.c_str(), body.c_str(), "    if (i < n) c[i] = a[i] - b[i];"};
    std::vector<Submission> submissions;
    std::vector<std::string> texts;
    for (int s = 0; s < students; ++s) {
        std::string text = copy;
        // Each student's own file (a comment with their number), so no two compile to the same cached module.
        text.replace(text.find(body), body.size(), std::string(variants[s % 8]) + "  // student " + std::to_string(s));
        const fs::path file = dir / ("student" + std::to_string(s) + ".cu");
        texts.push_back(text);
        submissions.push_back({"student" + std::to_string(s), file});
    }
    std::vector<bool> checks;
    if (sanitize != "yes") checks.push_back(false);
    if (sanitize != "no") checks.push_back(true);
    int pass = 0;
    for (const bool check : checks)
    for (int j : {1, jobs}) {
        assignment->spec.grade.sanitize = check;
        std::vector<BackendSetup> setups;
        std::vector<Engine*> engines;
        for (int k = 0; k < j; ++k) {
            auto setup = set_up_backend(backend);
            if (!setup) {
                std::printf("no backend: %s\n", setup.error().message.c_str());
                return 1;
            }
            setups.push_back(std::move(*setup));
            engines.push_back(setups.back().engine.get());
        }
        // A fresh cache per pass would measure the compiler; each pass grades new files (the comment differs).
        for (size_t s = 0; s < submissions.size(); ++s)
            std::ofstream(submissions[s].file) << texts[s] << "// pass " << pass << "\n";
        ++pass;
        const auto start = std::chrono::steady_clock::now();
        auto reference = grade_reference(*engines.front(), *assignment);
        if (!reference) {
            std::printf("the reference does not pass: %s\n", reference.error().message.c_str());
            return 1;
        }
        const std::vector<StudentResult> results = grade_class(engines, *assignment, *reference, submissions);
        const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        double kernel_ms = 0;
        int passed = 0, cases = 0;
        for (const StudentResult& r : results) {
            for (const CaseResult& c : r.cases) kernel_ms += c.time.median_ms;
            passed += r.passed;
            cases += int(r.cases.size());
        }
        std::printf("%s, checks %s, %d at a time: %d submissions x %zu cases in %.1f s = %.1f submissions/min; per submission "
                    "%.0f ms of wall time, of which the kernels ran %.2f ms; %d of %d cases passed\n",
                    engines.front()->device().name.c_str(),
                    check ? ("on (" + grade_checks(engines.front()->device(), true) + ")").c_str() : "off", j, students, assignment->spec.grade.cases.size(), wall_s,
                    60.0 * students / wall_s, 1000.0 * wall_s * j / students, kernel_ms / students, passed, cases);
        if (j == jobs || engines.front()->device().caps.gpu) break;
    }
    fs::remove_all(dir);
    return 0;
}
