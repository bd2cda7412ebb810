// `cuda-playground grade ASSIGNMENT SUBMISSIONS/`: every student's submission run on the assignment's hidden
// cases (core/session/grade.h), a line per student, results.json and results.csv in --out.
#include "cli/args.h"
#include "cli/commands.h"
#include "core/session/assignment.h"
#include "core/session/backend_setup.h"
#include "core/session/grade.h"

#include <cstdlib>
#include <fstream>
#include <iostream>

namespace cp::cli {

namespace {

std::string grade_usage() {
    return R"(usage: cuda-playground grade ASSIGNMENT SUBMISSIONS [--out DIR] [--backend NAME] [--jobs N] [--json FILE]

Runs every submission in the folder SUBMISSIONS (each `.cu` file in it, or each folder holding one `.cu` file:
the student is the file's or the folder's name) on the hidden cases of ASSIGNMENT (a lesson with `grade` lines,
kernels/FORMAT.md "Assignments"). Each submission is graded as the student's kernel code at its own lines with
the assignment's own header and reference, so a changed header or reference in the submission counts for
nothing. A submission that does not compile, faults, reads or writes out of bounds, hangs (past `grade time`),
tries what the sandbox refuses or is wrong gets that result, with the line and the first message a student
needs, and the others go on. Prints a line per student and writes DIR/results.json (docs/schema/
grade.schema.json), DIR/results.csv, and static pages to hand back: DIR/index.html (the class, sortable) and
DIR/students/NNN.html (a student each, with the lines around each error). Speed is not graded yet.

  --out DIR          where the results go (default: grade-results)
  --backend NAME     cpu, cuda or auto (default auto)
  --jobs N           grade N submissions at a time, each on a backend of its own (default 1; at most 64)
  --json FILE        results.json also there (`-`: on standard output, the lines per student then on stderr)
)";
}

bool write_file(const std::filesystem::path& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary);
    f << text;
    f.close();
    return bool(f);
}

}  // namespace

int cmd_grade(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {{"--out", true}, {"--backend", true}, {"--json", true}, {"--jobs", true}});
    if (!args) return user_error(args.error());
    if (args->has("--help")) {
        std::cout << grade_usage();
        return 0;
    }
    if (args->positional.size() != 2)
        return user_error("`grade` needs an ASSIGNMENT and a SUBMISSIONS folder",
                          "e.g. cuda-playground grade week1/vector_add.cu week1/submissions --out week1/results");
    auto assignment = load_assignment(args->positional[0]);
    if (!assignment) return user_error(assignment.error());
    const std::filesystem::path path = assignment->path;
    const std::filesystem::path dir = args->positional[1];
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
        return user_error("`" + dir.string() + "` is not a folder of submissions",
                          "give the folder that holds each student's .cu file (or a folder per student)");
    const std::vector<Submission> submissions = find_submissions(dir);
    if (submissions.empty())
        return user_error("`" + dir.string() + "` holds no submission", "each is a .cu file, or a folder with one");
    int jobs = 1;
    if (args->has("--jobs")) {
        const std::string v = args->get("--jobs");
        char* end = nullptr;
        const long n = std::strtol(v.c_str(), &end, 10);
        if (v.empty() || *end != '\0' || n < 1 || n > 64)
            return user_error("--jobs takes a number of submissions at a time from 1 to 64, not `" + v + "`",
                              "e.g. --jobs 2 on a machine of 2 cores");
        jobs = int(std::min<long>(n, long(submissions.size())));
    }
    const std::filesystem::path out = args->get("--out", "grade-results");
    if (auto ok = check_output_folder("--out", out); !ok) return user_error(ok.error());
    // The time limit of one case: the assignment's, unless the environment asks for another.
    if (!std::getenv("CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S"))
        setenv("CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S", std::to_string(std::max(1, int(assignment->spec.grade.time_limit_s + 0.5))).c_str(), 1);
    // One backend per job (a worker process each), made here before any job starts.
    std::vector<BackendSetup> setups;
    for (int j = 0; j < jobs; ++j) {
        auto setup = set_up_backend(args->get("--backend", "auto"), {});
        if (!setup) return user_error(setup.error());
        if (j == 0)
            for (const std::string& note : setup->fallback_notes()) std::cerr << "note: " << note << "\n";
        // On a GPU, one submission at a time, so that their kernel times do not mix (a job per GPU of a machine
        // of several is still to come).
        if (j == 0 && jobs > 1 && setup->engine->device().caps.gpu) {
            std::cerr << "note: on a GPU the submissions run one at a time (--jobs " << jobs
                      << " applies to the CPU backend), so that their times do not mix\n";
            jobs = 1;
        }
        setups.push_back(std::move(*setup));
    }
    const DeviceInfo& device = setups.front().engine->device();
    const bool json_out = args->get("--json") == "-";
    std::ostream& say = json_out ? std::cerr : std::cout;

    GradeReport report;
    report.assignment = path.string();
    report.backend = device.backend;
    report.device = device.name;
    report.correct_points = assignment->spec.grade.correct_points;
    report.speed_points = assignment->spec.grade.speed_points;
    for (const GradeCase& c : assignment->spec.grade.cases) report.case_names.push_back(c.name);
    say << "grading " << submissions.size() << " submission" << (submissions.size() == 1 ? "" : "s") << " on "
        << report.case_names.size() << " hidden case" << (report.case_names.size() == 1 ? "" : "s") << " ("
        << report.backend << ", " << report.device << (jobs > 1 ? ", " + std::to_string(jobs) + " at a time" : "")
        << ")\n";
    std::vector<Engine*> engines;
    for (BackendSetup& setup : setups) engines.push_back(setup.engine.get());
    report.students = grade_class(engines, *assignment, submissions, [&](const StudentResult& r) {
        say << "  " << r.student << ": " << r.passed << "/" << r.cases.size() << " cases, " << score_text(r.score)
            << " of " << report.correct_points << " points";
        for (const CaseResult& c : r.cases)
            if (c.status != CaseStatus::Passed) {
                say << "; " << c.name << ": " << case_status_name(c.status)
                    << (c.line > 0 ? " (line " + std::to_string(c.line) + ")" : std::string());
                break;
            }
        say << "\n" << std::flush;
    });
    std::filesystem::create_directories(out, ec);
    std::filesystem::create_directories(out / "students", ec);
    bool written = write_file(out / "results.json", grade_results_json(report)) &&
                   write_file(out / "results.csv", grade_results_csv(report));
    for (const auto& [name, page] : grade_results_html(report)) written = written && write_file(out / name, page);
    if (!written) return user_error(make_error(ErrorKind::Io, "could not write the results into " + out.string()));
    const std::string json = grade_results_json(report);
    if (json_out) std::cout << json;
    else if (args->has("--json") && !write_file(args->get("--json"), json))
        return user_error(make_error(ErrorKind::Io, "could not write " + args->get("--json")));
    say << "wrote " << (out / "results.json").string() << ", " << (out / "results.csv").string() << " and the pages "
        << (out / "index.html").string() << " (the class) and " << (out / "students").string() << "/ (a student each)\n";
    return 0;
}

}  // namespace cp::cli
