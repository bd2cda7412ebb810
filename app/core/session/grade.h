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
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cp {

class KernelSession;

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

enum class CaseStatus { Passed, Wrong, CompileError, Fault, OutOfBounds, Race, Hang, Refused, SandboxRefusal, Error };
const char* case_status_name(CaseStatus s);  // "passed", "wrong", "compile_error", ...

// A passed case's time against the reference kernel's: a difference counts only where it exceeds the two
// measurements' noise (speed_verdict); None: not timed (the case did not pass, or no reference time).
enum class SpeedVerdict { None, Faster, Same, Slower };
const char* speed_verdict_name(SpeedVerdict v);  // "", "faster", "same", "slower"

// A case's kernel time: the median of kGradeTimedRuns launches (after one untimed) and their spread.
inline constexpr int kGradeTimedRuns = 5;
struct CaseTime {
    double median_ms = 0, min_ms = 0, max_ms = 0;
    bool cpu_time = false;  // the CPU backend's clock (TimingStats::cpu_time)
    bool measured() const { return median_ms > 0; }
    // What one measurement may be off by: half the samples' range, and at least what runs of the same kernel
    // drift by from one run to another (5% of the median and 5 µs on a GPU; half of it and 50 µs on the CPU
    // backend, whose emulated threads share the machine's cores with everything else).
    double noise_ms() const;
};
// Faster or Slower only where the medians differ by more than the two noises added; Same otherwise.
SpeedVerdict speed_verdict(const CaseTime& submission, const CaseTime& reference);

struct CaseResult {
    std::string name;
    CaseStatus status = CaseStatus::Error;
    ErrorKind kind = ErrorKind::Unknown;  // of the error, when there was one
    std::string message;                  // the first thing the student needs: the error or the first mismatch
    int line = 0;                         // the submission's line it points at; 0: none
    double max_error = 0;
    uint64_t mismatches = 0;
    std::optional<uint64_t> seed;         // the case's `seed`; none: the header's own
    CaseTime time;                        // of the graded run (not of a sanitizer's)
    // The reference kernel's on the same case and engine, timed right after this one (paired, so that a clock
    // that drifts over a class's grading does not decide); not measured: the class's reference time is used.
    CaseTime reference_time;
    std::string checks;                   // what else ran on it: "memcheck, racecheck", "threads reversed and shuffled"
    SpeedVerdict speed = SpeedVerdict::None;
    double speedup = 0;                   // the reference's median / this median; 0: not timed
    double speed_fraction = 0;            // of the speed points this case earns: 1 unless slower, 0 unless passed
    // What the result was made from (grade_case_key): a re-grade with the same key keeps it without a run.
    std::string key;
    bool reused = false;                  // kept from the previous results (not written to results.json)
};
struct StudentResult {
    std::string student;
    std::filesystem::path file;
    std::vector<CaseResult> cases;
    int passed = 0;
    double correct_score = 0;  // correctness points earned (out of the assignment's correct points)
    double speed_score = 0;    // speed points earned (out of its speed points)
    double score = 0;          // both
};
struct GradeReport {
    std::string assignment, backend, device, driver;
    int correct_points = 100, speed_points = 0;
    std::vector<std::string> case_names;
    std::string checks;          // what ran beside each case (grade_checks)
    StudentResult reference;     // the assignment's own kernel, graded as a submission: the times speed is against
    std::vector<StudentResult> students;
};

// What `grade sanitize: yes` runs beside each case on `device`: compute-sanitizer's memcheck (and racecheck for
// a kernel with shared memory) where the CUDA worker can run under it; on the CPU backend, which checks every
// load and store itself, runs with each block's threads reversed and shuffled (a result that changes with the
// order is a race). Empty when nothing can run (or `sanitize` is off).
std::string grade_checks(const DeviceInfo& device, bool sanitize);

// What a case's result depends on, as a short hash: the submission's text, the assignment's text but for its
// other cases' lines, this case's line, the device and the checks. Change one case and only it runs again.
std::string grade_case_key(const KernelFile& assignment, const GradeCase& grade_case, const std::string& submission_source,
                           const DeviceInfo& device, const std::string& checks);

// A session on the assignment's own kernel (graded as a submission would be) on `engine`, for paired times.
std::unique_ptr<KernelSession> reference_session(Engine& engine, const KernelFile& assignment);

// Runs one submission on every case of `assignment` on `engine`. `assignment` must be usable and an assignment.
// A case of `previous` (the same student's last results, may be null) with the same key is kept, not run.
// `reference` (may be null; reference_session on the same engine): each passed case's reference time is taken
// right after it (CaseResult::reference_time). Speed is not scored here (score_speed does).
StudentResult grade_submission(Engine& engine, const KernelFile& assignment, const Submission& submission,
                               const StudentResult* previous = nullptr, KernelSession* reference = nullptr);

// Each passed case's verdict, speed-up and fraction against its paired reference time where it has one, else
// against `reference` (the reference graded on the same cases), and the student's speed and total scores.
void score_speed(StudentResult& student, const StudentResult& reference, const GradeSpec& grade);

// The assignment's own kernel graded as a submission (its file as the student's): every case must pass, or
// the Error (kind UserInput) names the case and why, since no submission can be graded against it.
Result<StudentResult> grade_reference(Engine& engine, const KernelFile& assignment,
                                      const StudentResult* previous = nullptr);
// That check alone, for a reference graded elsewhere (a Slurm array's task 0).
Result<bool> reference_passes(const StudentResult& reference);

// Every submission, as many at a time as `engines` (one engine each, a thread per engine past the first, which
// runs on the caller's); results in the submissions' order, their speed scored against `reference`. `done` (may
// be empty) is called as each ends, from the thread that graded it, one call at a time.
std::vector<StudentResult> grade_class(const std::vector<Engine*>& engines, const KernelFile& assignment,
                                       const StudentResult& reference, const std::vector<Submission>& submissions,
                                       const std::function<void(const StudentResult&)>& done = {},
                                       const std::vector<StudentResult>* previous = nullptr);

// A score or a time for people: "53.33", "80", "0.1758".
std::string score_text(double v);

// One task of a class graded elsewhere (a Slurm array's, grade_slurm.h): the student (or the reference) graded,
// and the device it ran on. As JSON in the results' schema version.
struct GradeTask {
    StudentResult result;
    std::string backend, device, driver, checks;
};
std::string grade_task_json(const GradeTask& task);
Result<GradeTask> read_grade_task(const std::string& json_text);

std::string grade_results_json(const GradeReport& report);
// results.json read back (a re-grade's previous results, the window's class table). An Error (kind Metadata)
// says what is missing or of another schema version.
Result<GradeReport> read_grade_results(const std::string& json_text);
std::string grade_results_csv(const GradeReport& report);

// Static pages a teacher can hand back: the class page (index.html: a table by student, sortable by any column
// with a click) and one page per student (each case's result, message and the lines of the submission around the
// error), as file name -> content. Every name, message and line of a submission is HTML-escaped.
std::vector<std::pair<std::string, std::string>> grade_results_html(const GradeReport& report);
// The page of report.students[i]: "students/NNN.html" (numbered, so that no student's name becomes a path).
std::string student_page_name(size_t i);

}  // namespace cp
