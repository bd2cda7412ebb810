// `cuda-playground grade ASSIGNMENT SUBMISSIONS/`: every student's submission run on the assignment's hidden
// cases (core/session/grade.h), a line per student, results.json and results.csv in --out.
#include "cli/args.h"
#include "cli/commands.h"
#include "core/session/assignment.h"
#include "core/session/backend_setup.h"
#include "core/session/grade.h"
#include "core/session/grade_slurm.h"
#include "core/toolkit/cubin_cache.h"

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

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
DIR/students/NNN.html (a student each, with the lines around each error). The assignment's own kernel runs
first, as the reference: each passed case's median time against its (`grade score: speed M`), and a check
that it passes every case. A re-grade into the same DIR runs only the cases whose submission, case line or
assignment changed.

  --out DIR          where the results go (default: grade-results)
  --backend NAME     cpu, cuda or auto (default auto)
  --jobs N           grade N submissions at a time, each on a backend of its own (default 1; at most 64): CPU
                     workers, or on GPUs one submission per GPU at a time (at most as many as the machine has)
  --slurm "OPTIONS"  grade as one Slurm array job (sbatch OPTIONS; `--gres=gpu:1` unless they name --gres, and
                     `--gres=none` for none): task 0 the reference, task K the K-th submission, followed with
                     squeue; a task that left no result (a node lost) is submitted again, twice at most. DIR
                     must be on a filesystem the nodes share
  --json FILE        results.json also there (`-`: on standard output, the lines per student then on stderr)
  --task K           (what each Slurm task runs) grade only task K into DIR/slurm/task-K.json
)";
}

bool write_file(const std::filesystem::path& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary);
    f << text;
    f.close();
    return bool(f);
}

}  // namespace

namespace {

std::string read_text(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream text;
    text << f.rdbuf();
    return text.str();
}

// The previous results in `out` (a re-grade keeps each case whose inputs did not change); none when there are
// none or they are of another version (said on `say`).
std::optional<GradeReport> previous_results(const std::filesystem::path& out, std::ostream* say) {
    std::error_code ec;
    if (!std::filesystem::exists(out / "results.json", ec)) return std::nullopt;
    auto read = read_grade_results(read_text(out / "results.json"));
    if (read) return std::move(*read);
    if (say) *say << "note: " << (out / "results.json").string() << " is not used again: " << read.error().message << "\n";
    return std::nullopt;
}

const StudentResult* previous_of(const std::optional<GradeReport>& previous, const std::string& student) {
    if (!previous) return nullptr;
    for (const StudentResult& s : previous->students)
        if (s.student == student) return &s;
    return nullptr;
}

// The test suite's stand-in for a node lost mid-task (CUDA_PLAYGROUND_GRADE_LOSE_TASK=K): task K's first
// attempt dies as a killed node's would, leaving no result; its second runs.
void lose_task_once_if_asked(const std::filesystem::path& out, size_t task) {
    const char* lose = std::getenv("CUDA_PLAYGROUND_GRADE_LOSE_TASK");
    if (!lose || std::to_string(task) != lose) return;
    const std::filesystem::path marker = out / "slurm" / ("task-" + std::to_string(task) + ".lost");
    std::error_code ec;
    if (std::filesystem::exists(marker, ec)) return;
    std::ofstream(marker) << "lost once\n";
    std::raise(SIGKILL);
}

}  // namespace

int cmd_grade(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {{"--out", true}, {"--backend", true}, {"--json", true}, {"--jobs", true},
                                  {"--slurm", true}, {"--task", true}});
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
    if (args->has("--slurm") && args->has("--jobs"))
        return user_error("--slurm and --jobs do not go together", "on Slurm every submission is a task of its own");
    const std::filesystem::path out = args->get("--out", "grade-results");
    if (auto ok = check_output_folder("--out", out); !ok) return user_error(ok.error());
    // The time limit of one case: the assignment's, unless the environment asks for another.
    if (!std::getenv("CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S"))
        setenv("CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S", std::to_string(std::max(1, int(assignment->spec.grade.time_limit_s + 0.5))).c_str(), 1);
    const bool json_out = args->get("--json") == "-";
    std::ostream& say = json_out ? std::cerr : std::cout;

    GradeReport report;
    report.assignment = path.string();
    report.correct_points = assignment->spec.grade.correct_points;
    report.speed_points = assignment->spec.grade.speed_points;
    for (const GradeCase& c : assignment->spec.grade.cases) report.case_names.push_back(c.name);
    size_t kept = 0, total = 0;
    auto said = [&](const StudentResult& r) {
        say << "  " << r.student << ": " << r.passed << "/" << r.cases.size() << " cases, " << score_text(r.score)
            << " of " << report.correct_points + report.speed_points << " points";
        for (const CaseResult& c : r.cases) {
            kept += c.reused;
            ++total;
        }
        for (const CaseResult& c : r.cases)
            if (c.status != CaseStatus::Passed) {
                say << "; " << c.name << ": " << case_status_name(c.status)
                    << (c.line > 0 ? " (line " + std::to_string(c.line) + ")" : std::string());
                break;
            }
        say << "\n" << std::flush;
    };

    if (args->has("--task")) {
        // One task of a Slurm array: the reference (0) or submission K, its result into out/slurm/task-K.json.
        const std::string v = args->get("--task");
        char* end = nullptr;
        const unsigned long task = std::strtoul(v.c_str(), &end, 10);
        if (v.empty() || *end != '\0' || task > submissions.size())
            return user_error("--task takes 0 (the reference) to " + std::to_string(submissions.size()) + ", not `" + v + "`");
        lose_task_once_if_asked(out, task);
        auto setup = set_up_backend(args->get("--backend", "auto"), {});
        if (!setup) return user_error(setup.error());
        const DeviceInfo& device = setup->engine->device();
        const std::optional<GradeReport> previous = previous_results(out, nullptr);
        GradeTask t;
        t.backend = device.backend;
        t.device = device.name;
        t.driver = device.driver_version;
        t.checks = grade_checks(device, assignment->spec.grade.sanitize);
        if (task == 0) {
            auto ref = grade_reference(*setup->engine, *assignment, previous ? &previous->reference : nullptr);
            // A reference that fails is the teacher's to see: its result goes back as it is.
            if (ref) t.result = std::move(*ref);
            else t.result = grade_submission(*setup->engine, *assignment, Submission{"(reference)", path});
        } else {
            const Submission& s = submissions[task - 1];
            const std::unique_ptr<KernelSession> paired = reference_session(*setup->engine, *assignment);
            t.result = grade_submission(*setup->engine, *assignment, s, previous_of(previous, s.student), paired.get());
        }
        if (!write_file_whole(grade_task_file(out, task), grade_task_json(t)))
            return user_error(make_error(ErrorKind::Io, "could not write " + grade_task_file(out, task).string()));
        say << "task " << task << " (" << t.result.student << "): " << t.result.passed << "/" << t.result.cases.size()
            << " cases on " << t.device << "\n";
        return 0;
    }

    if (args->has("--slurm")) {
        SlurmGrading s;
        s.sbatch_options = args->get("--slurm");
        s.out = std::filesystem::absolute(out);
        s.tasks = submissions.size() + 1;
        s.say = [&](const std::string& line) { say << line << "\n" << std::flush; };
        s.task_command = {std::filesystem::read_symlink("/proc/self/exe", ec).string(), "grade",
                          std::filesystem::absolute(path).string(), std::filesystem::absolute(dir).string(),
                          "--out", s.out.string(), "--backend", args->get("--backend", "auto"), "--task"};
        std::filesystem::create_directories(out, ec);
        say << "grading " << submissions.size() << " submission" << (submissions.size() == 1 ? "" : "s") << " on "
            << report.case_names.size() << " hidden case" << (report.case_names.size() == 1 ? "" : "s")
            << " as a Slurm array of " << s.tasks << " tasks (0: the reference)\n";
        auto tasks = grade_on_slurm(s);
        if (!tasks) return user_error(tasks.error());
        const GradeTask& ref = tasks->front();
        report.backend = ref.backend;
        report.device = ref.device;
        report.driver = ref.driver;
        report.checks = ref.checks;
        if (auto passes = reference_passes(ref.result); !passes) return user_error(passes.error());
        report.reference = ref.result;
        for (size_t i = 1; i < tasks->size(); ++i) {
            GradeTask& t = (*tasks)[i];
            if (t.device != ref.device)
                say << "note: " << t.result.student << " ran on " << t.device << ", the reference on " << ref.device
                    << ": their times are compared all the same (pin the nodes with --slurm \"--constraint=...\")\n";
            score_speed(t.result, report.reference, assignment->spec.grade);
            said(t.result);
            report.students.push_back(std::move(t.result));
        }
    } else {
        // One backend per job (a worker process each), made here before any job starts: on the CPU backend J
        // workers; on GPUs one per GPU at most (each job on a GPU of its own, so that times do not mix).
        std::vector<BackendSetup> setups;
        std::vector<std::unique_ptr<Engine>> other_gpus;
        std::vector<Engine*> engines;
        for (int j = 0; j < jobs; ++j) {
            if (!setups.empty() && setups.front().engine->device().caps.gpu) {
                auto engine = setups.front().open_device(j);
                if (!engine) return user_error(engine.error());
                other_gpus.push_back(std::move(*engine));
                engines.push_back(other_gpus.back().get());
                continue;
            }
            auto setup = set_up_backend(args->get("--backend", "auto"), {});
            if (!setup) return user_error(setup.error());
            if (j == 0) {
                for (const std::string& note : setup->fallback_notes()) std::cerr << "note: " << note << "\n";
                const int gpus = setup->open_device ? setup->device_count : 1;
                if (jobs > 1 && setup->engine->device().caps.gpu && jobs > gpus) {
                    std::cerr << "note: one submission per GPU at a time, so that their times do not mix: " << gpus
                              << " at a time on this machine's " << gpus << " GPU" << (gpus == 1 ? "" : "s") << "\n";
                    jobs = gpus;
                }
            }
            setups.push_back(std::move(*setup));
            engines.push_back(setups.back().engine.get());
        }
        const DeviceInfo& device = setups.front().engine->device();
        if (jobs > 1 && !device.caps.gpu && assignment->spec.grade.speed_points > 0)
            say << "note: " << jobs << " at a time share this machine's cores, so each submission's time is taken "
                << "beside another's and the reference's alone: for the speed points, grade one at a time (or on a GPU)\n";
        report.backend = device.backend;
        report.device = device.name;
        report.driver = device.driver_version;
        report.checks = grade_checks(device, assignment->spec.grade.sanitize);
        const std::optional<GradeReport> previous = previous_results(out, &say);
        say << "grading " << submissions.size() << " submission" << (submissions.size() == 1 ? "" : "s") << " on "
            << report.case_names.size() << " hidden case" << (report.case_names.size() == 1 ? "" : "s") << " ("
            << report.backend << ", " << report.device << (jobs > 1 ? ", " + std::to_string(jobs) + " at a time" : "")
            << (report.checks.empty() ? std::string() : "; checked by " + report.checks) << ")\n";
        // The assignment's own kernel first: the times speed is graded against, and a check that it passes.
        auto reference = grade_reference(*engines.front(), *assignment, previous ? &previous->reference : nullptr);
        if (!reference) return user_error(reference.error());
        report.reference = std::move(*reference);
        report.students = grade_class(engines, *assignment, report.reference, submissions, said,
                                      previous ? &previous->students : nullptr);
    }
    say << "  reference:";
    for (const CaseResult& c : report.reference.cases) say << " " << c.name << " " << score_text(c.time.median_ms) << " ms";
    say << "\n";
    if (kept > 0)
        say << "kept " << kept << " of " << total << " case results from the last grading (their submission, case and "
            << "assignment unchanged)\n";
    std::filesystem::create_directories(out, ec);
    std::filesystem::create_directories(out / "students", ec);
    const std::string json = grade_results_json(report);
    bool written = write_file(out / "results.json", json) && write_file(out / "results.csv", grade_results_csv(report));
    for (const auto& [name, page] : grade_results_html(report)) written = written && write_file(out / name, page);
    if (!written) return user_error(make_error(ErrorKind::Io, "could not write the results into " + out.string()));
    if (json_out) std::cout << json;
    else if (args->has("--json") && !write_file(args->get("--json"), json))
        return user_error(make_error(ErrorKind::Io, "could not write " + args->get("--json")));
    say << "wrote " << (out / "results.json").string() << ", " << (out / "results.csv").string() << " and the pages "
        << (out / "index.html").string() << " (the class) and " << (out / "students").string() << "/ (a student each)\n";
    return 0;
}

}  // namespace cp::cli
