#include "core/session/grade.h"

#include "core/kernel_file/reference_section.h"
#include "core/session/assignment.h"
#include "core/session/report_text.h"
#include "core/session/sanitize.h"
#include "core/toolkit/cubin_cache.h"
#include "core/session/session.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
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
        case ErrorKind::Race:
            return CaseStatus::Race;
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
        case CaseStatus::Race: return "race";
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

namespace {
const char* const kThreadOrderChecks = "threads reversed and shuffled";
}  // namespace

std::string grade_checks(const DeviceInfo& device, bool sanitize) {
    if (!sanitize) return "";
    if (sanitize_unavailable_reason(device).empty()) return "memcheck, racecheck";
    if (device.caps.thread_order) return kThreadOrderChecks;
    return "";
}

double CaseTime::noise_ms() const {
    return std::max({(max_ms - min_ms) / 2, median_ms * (cpu_time ? 0.5 : 0.05), cpu_time ? 0.05 : 0.005});
}

SpeedVerdict speed_verdict(const CaseTime& submission, const CaseTime& reference) {
    if (!submission.measured() || !reference.measured()) return SpeedVerdict::None;
    const double margin = submission.noise_ms() + reference.noise_ms();
    if (submission.median_ms < reference.median_ms - margin) return SpeedVerdict::Faster;
    if (submission.median_ms > reference.median_ms + margin) return SpeedVerdict::Slower;
    return SpeedVerdict::Same;
}

const char* speed_verdict_name(SpeedVerdict v) {
    switch (v) {
        case SpeedVerdict::None: return "";
        case SpeedVerdict::Faster: return "faster";
        case SpeedVerdict::Same: return "same";
        case SpeedVerdict::Slower: return "slower";
    }
    return "";
}

std::string grade_case_key(const KernelFile& assignment, const GradeCase& grade_case, const std::string& submission_source,
                           const DeviceInfo& device, const std::string& checks) {
    // The assignment's text without its case lines (so that another case's change leaves this one's key).
    std::string assignment_text;
    std::istringstream lines(assignment.source);
    int line = 0;
    for (std::string l; std::getline(lines, l);) {
        ++line;
        const bool other_case = std::any_of(assignment.spec.grade.cases.begin(), assignment.spec.grade.cases.end(),
                                            [&](const GradeCase& c) { return c.line == line; });
        assignment_text += other_case ? (line == grade_case.line ? l : std::string()) : l;
        assignment_text += '\n';
    }
    std::string inputs = "grade " + std::to_string(kGradeSchemaVersion) + " runs " + std::to_string(kGradeTimedRuns) + '\n';
    inputs += "device " + device.backend + ' ' + device.name + ' ' + device.arch + ' ' + device.driver_version + '\n';
    inputs += "checks " + checks + '\n';
    inputs += "case " + grade_case.name + '\n';
    inputs += std::to_string(assignment_text.size()) + '\n' + assignment_text;
    inputs += std::to_string(submission_source.size()) + '\n' + submission_source;
    return cache_key(inputs);
}

namespace {

CaseTime case_time(const TimingStats& t) { return CaseTime{t.median_ms, t.min_ms, t.max_ms, t.cpu_time}; }

// The first error among a compile's diagnostics, into `r`'s message and line.
void first_diagnostic(const std::vector<Diagnostic>& diagnostics, CaseResult& r) {
    for (const Diagnostic& d : diagnostics)
        if (d.severity == Severity::Error) {
            r.message = d.message;
            r.line = d.line;
            return;
        }
}

// One case's run: the status from the error's kind, or the check's verdict; `timed`: one untimed launch and
// kGradeTimedRuns timed ones, else one. `shared` (may be null): whether the kernel uses shared memory.
CaseResult run_case(KernelSession& session, const GradeCaseChoices& c, bool timed, bool* shared = nullptr) {
    CaseResult r;
    r.name = c.grade_case->name;
    r.seed = c.grade_case->seed;
    session.set_choices(c.choices);
    RunOptions options;
    options.verify = true;
    options.timing.warmup = timed ? 1 : 0;
    options.timing.repeats = timed ? kGradeTimedRuns : 1;
    const RunReport report = session.run(options);
    if (shared)
        *shared = report.usage.static_shared_bytes > 0 || (report.resolved && report.resolved->dynamic_shared_bytes > 0);
    if (!report.ok()) {
        r.kind = report.error->kind;
        r.status = status_of(r.kind);
        r.message = report.error->message;
        r.line = report.error_line;
        if (r.status == CaseStatus::CompileError) first_diagnostic(report.diagnostics, r);
        return r;
    }
    r.time = case_time(report.timing);
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
    return r;
}

// The CPU backend's race check: the case again with each block's threads in reverse order, then shuffled (a
// fixed seed). A result that is not the first run's (passed there, wrong here, or wrong by other elements)
// depends on the order the threads run in.
void thread_order_check(KernelSession& session, const GradeCaseChoices& c, CaseResult& r) {
    auto same_outcome = [&](const CaseResult& a) {
        return a.status == r.status && a.mismatches == r.mismatches && a.max_error == r.max_error;
    };
    CaseResult again;
    std::string order;
    for (const ThreadOrderChoice& o : {ThreadOrderChoice{ThreadOrderChoice::Kind::Reversed, 1},
                                       ThreadOrderChoice{ThreadOrderChoice::Kind::Shuffled, 7}}) {
        GradeCaseChoices other = c;
        other.choices.thread_order = o;
        again = run_case(session, other, false);
        order = o.kind == ThreadOrderChoice::Kind::Reversed ? "in reverse order" : "shuffled";
        if (!same_outcome(again)) break;
    }
    if (same_outcome(again)) return;
    const std::string first = r.status == CaseStatus::Passed ? "passes" : "is " + std::string(case_status_name(r.status));
    const std::string second = again.status == CaseStatus::Passed ? "passes" : "is " + std::string(case_status_name(again.status));
    r.kind = ErrorKind::Race;
    r.status = CaseStatus::Race;
    r.line = again.line > 0 ? again.line : r.line;
    r.message = "the result depends on the order the block's threads run in: it " + first + " with the threads in order and " +
                second + " with them " + order + (again.message.empty() ? std::string() : " (" + again.message + ")") +
                ". Threads read what others write without a __syncthreads() between, or write the same element.";
}

// compute-sanitizer's tool over one passed or wrong case, on a worker of its own; its first finding becomes the result.
void sanitizer_check(const KernelFile& file, const GradeCaseChoices& c, const std::string& tool, CaseResult& r) {
    RunOptions options;
    options.verify = false;
    options.timing.warmup = 0;
    options.timing.repeats = 1;
    auto run = run_sanitized(file, c.choices, options, tool);
    if (!run) {
        r.status = CaseStatus::Error;
        r.kind = run.error().kind;
        r.message = tool + " could not run: " + run.error().message;
        return;
    }
    if (run->summary.findings.empty()) return;
    const SanitizerFinding& f = run->summary.findings.front();
    r.status = tool == "racecheck" ? CaseStatus::Race : CaseStatus::OutOfBounds;
    r.kind = tool == "racecheck" ? ErrorKind::Race : ErrorKind::OutOfBounds;
    r.line = f.line;
    r.message = tool + ": " + f.message();
}

// Each case's result for a submission that cannot run at all.
void every_case(const GradeSpec& g, StudentResult& out, CaseStatus status, ErrorKind kind, const std::string& message, int line) {
    for (const GradeCase& c : g.cases) {
        CaseResult r;
        r.name = c.name;
        r.status = status;
        r.kind = kind;
        r.message = message;
        r.line = line;
        r.seed = c.seed;
        out.cases.push_back(std::move(r));
    }
}

void add_up(StudentResult& out, const GradeSpec& g) {
    out.passed = 0;
    for (const CaseResult& c : out.cases) out.passed += c.status == CaseStatus::Passed;
    out.correct_score = g.cases.empty() ? 0 : g.correct_points * double(out.passed) / double(g.cases.size());
    out.score = out.correct_score + out.speed_score;
}

StudentResult grade_source(Engine& engine, const KernelFile& assignment, const std::string& student,
                           const fs::path& path, const std::string& source, const StudentResult* previous,
                           KernelSession* reference = nullptr) {
    StudentResult out;
    out.student = student;
    out.file = path;
    const GradeSpec& g = assignment.spec.grade;
    KernelFile file = graded_file(assignment, source, path);
    if (has_errors(file.diagnostics) || !file.signature) {
        const Diagnostic* first = nullptr;
        for (const Diagnostic& d : file.diagnostics)
            if (d.severity == Severity::Error) { first = &d; break; }
        every_case(g, out, CaseStatus::CompileError, ErrorKind::Metadata,
                   first ? first->message : "the kernel the assignment asks for is not in the file", first ? first->line : 0);
        add_up(out, g);
        return out;
    }
    auto cases = grade_case_choices(assignment);
    if (!cases) {
        every_case(g, out, CaseStatus::Error, cases.error().kind, cases.error().message, 0);
        add_up(out, g);
        return out;
    }
    const DeviceInfo& device = engine.device();
    const std::string checks = grade_checks(device, g.sanitize);
    KernelSession session(engine);
    session.set_kernel(file);
    for (const GradeCaseChoices& c : *cases) {
        const std::string key = grade_case_key(assignment, *c.grade_case, source, device, checks);
        if (previous) {
            const auto kept = std::find_if(previous->cases.begin(), previous->cases.end(),
                                           [&](const CaseResult& p) { return p.name == c.grade_case->name && p.key == key; });
            if (kept != previous->cases.end()) {
                out.cases.push_back(*kept);
                out.cases.back().reused = true;
                continue;
            }
        }
        bool shared = false;
        CaseResult r = run_case(session, c, true, &shared);
        // The reference right after, on the same engine: the two times are taken as close together as can be.
        if (reference && r.status == CaseStatus::Passed) {
            const CaseResult ref = run_case(*reference, c, true);
            if (ref.status == CaseStatus::Passed) r.reference_time = ref.time;
        }
        r.key = key;
        r.checks = checks;
        if (g.sanitize && (r.status == CaseStatus::Passed || r.status == CaseStatus::Wrong)) {
            if (checks == kThreadOrderChecks) {
                thread_order_check(session, c, r);
            } else if (!checks.empty()) {
                // A wrong result too: reads past a buffer's end (which fault nowhere on a GPU) or a race are the
                // reason worth telling the student, and only compute-sanitizer sees them.
                const CaseStatus before = r.status;
                sanitizer_check(file, c, "memcheck", r);
                // racecheck looks at shared memory only: a kernel without any has nothing for it.
                if (r.status == before && shared) sanitizer_check(file, c, "racecheck", r);
            }
        }
        out.cases.push_back(std::move(r));
    }
    add_up(out, g);
    return out;
}

}  // namespace

std::unique_ptr<KernelSession> reference_session(Engine& engine, const KernelFile& assignment) {
    auto session = std::make_unique<KernelSession>(engine);
    session->set_kernel(graded_file(assignment, students_copy(assignment), assignment.path));
    return session;
}

StudentResult grade_submission(Engine& engine, const KernelFile& assignment, const Submission& submission,
                               const StudentResult* previous, KernelSession* reference) {
    const GradeSpec& g = assignment.spec.grade;
    StudentResult out;
    out.student = submission.student;
    out.file = submission.file;
    if (submission.file.empty()) {
        every_case(g, out, CaseStatus::Error, ErrorKind::UserInput, "no single .cu file in the student's folder", 0);
        return out;
    }
    auto loaded = load_kernel_file(submission.file);  // read as any kernel file is (its size limit included)
    if (!loaded) {
        every_case(g, out, CaseStatus::Error, loaded.error().kind, loaded.error().message, 0);
        return out;
    }
    return grade_source(engine, assignment, submission.student, submission.file, loaded->source, previous, reference);
}

Result<StudentResult> grade_reference(Engine& engine, const KernelFile& assignment, const StudentResult* previous) {
    // Twice, the first pass's times thrown away: the engine's first runs (its worker's threads and pages, the
    // GPU's clocks) are slower than any later submission's would be, which would flatter every student.
    StudentResult ref = grade_source(engine, assignment, "(reference)", assignment.path, students_copy(assignment), previous);
    if (std::any_of(ref.cases.begin(), ref.cases.end(), [](const CaseResult& c) { return !c.reused; }))
        ref = grade_source(engine, assignment, "(reference)", assignment.path, students_copy(assignment), previous);
    if (auto passes = reference_passes(ref); !passes) return passes.error();
    return ref;
}

Result<bool> reference_passes(const StudentResult& reference) {
    for (const CaseResult& c : reference.cases)
        if (c.status != CaseStatus::Passed)
            return make_error(ErrorKind::UserInput,
                              "the assignment's own kernel does not pass its case `" + c.name + "` (" +
                                  case_status_name(c.status) + (c.line > 0 ? ", line " + std::to_string(c.line) : std::string()) +
                                  (c.message.empty() ? std::string() : ": " + c.message) +
                                  "): fix the case or the kernel, since every submission is graded against it");
    return true;
}

void score_speed(StudentResult& student, const StudentResult& reference, const GradeSpec& grade) {
    double fractions = 0;
    for (CaseResult& c : student.cases) {
        const auto ref = std::find_if(reference.cases.begin(), reference.cases.end(),
                                      [&](const CaseResult& r) { return r.name == c.name; });
        c.speed = SpeedVerdict::None;
        c.speedup = 0;
        c.speed_fraction = 0;
        if (c.status != CaseStatus::Passed || ref == reference.cases.end()) continue;
        const CaseTime& against = c.reference_time.measured() ? c.reference_time : ref->time;
        c.speed = speed_verdict(c.time, against);
        if (c.speed == SpeedVerdict::None) continue;
        c.speedup = against.median_ms / c.time.median_ms;
        c.speed_fraction = c.speed == SpeedVerdict::Slower ? std::min(1.0, c.speedup) : 1.0;
        fractions += c.speed_fraction;
    }
    student.speed_score = grade.cases.empty() ? 0 : grade.speed_points * fractions / double(grade.cases.size());
    add_up(student, grade);
}

std::vector<StudentResult> grade_class(const std::vector<Engine*>& engines, const KernelFile& assignment,
                                       const StudentResult& reference, const std::vector<Submission>& submissions,
                                       const std::function<void(const StudentResult&)>& done,
                                       const std::vector<StudentResult>* previous) {
    std::vector<StudentResult> results(submissions.size());
    std::atomic<size_t> next{0};
    std::mutex done_lock;
    auto previous_of = [&](const Submission& s) -> const StudentResult* {
        if (!previous) return nullptr;
        for (const StudentResult& p : *previous)
            if (p.student == s.student) return &p;
        return nullptr;
    };
    auto work = [&](Engine& engine) {
        const std::unique_ptr<KernelSession> paired = reference_session(engine, assignment);
        for (size_t i = next++; i < submissions.size(); i = next++) {
            results[i] = grade_submission(engine, assignment, submissions[i], previous_of(submissions[i]), paired.get());
            score_speed(results[i], reference, assignment.spec.grade);
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

namespace {

nlohmann::json time_json(const CaseTime& t) {
    if (!t.measured()) return nullptr;
    return {{"median_ms", t.median_ms}, {"min_ms", t.min_ms}, {"max_ms", t.max_ms}, {"cpu_time", t.cpu_time}};
}

nlohmann::json student_json(const StudentResult& s) {
    using nlohmann::json;
    json cases = json::array();
    for (const CaseResult& c : s.cases) {
        json one = {{"case", c.name}, {"status", case_status_name(c.status)}};
        one["error_kind"] = c.status == CaseStatus::Passed || c.status == CaseStatus::Wrong ? json(nullptr)
                                                                                            : json(error_kind_name(c.kind));
        one["message"] = c.message;
        one["line"] = c.line > 0 ? json(c.line) : json(nullptr);
        one["max_error"] = c.max_error;
        one["mismatches"] = c.mismatches;
        one["seed"] = c.seed ? json(*c.seed) : json(nullptr);
        one["kernel_ms"] = c.time.measured() ? json(c.time.median_ms) : json(nullptr);
        one["time"] = time_json(c.time);
        one["reference_time"] = time_json(c.reference_time);
        one["checks"] = c.checks;
        one["speed"] = c.speed == SpeedVerdict::None ? json(nullptr) : json(speed_verdict_name(c.speed));
        one["speedup"] = c.speedup > 0 ? json(c.speedup) : json(nullptr);
        one["speed_fraction"] = c.speed_fraction;
        one["key"] = c.key;
        one["kept"] = c.reused;
        cases.push_back(std::move(one));
    }
    return {{"student", s.student},         {"file", s.file.string()},     {"passed", s.passed},
            {"cases", std::move(cases)},    {"correct_score", s.correct_score}, {"speed_score", s.speed_score},
            {"score", s.score}};
}

}  // namespace

std::string grade_results_json(const GradeReport& report) {
    using nlohmann::json;
    json students = json::array();
    for (const StudentResult& s : report.students) students.push_back(student_json(s));
    json j = {{"schema_version", kGradeSchemaVersion},
              {"assignment", report.assignment},
              {"backend", report.backend},
              {"device", report.device},
              {"driver", report.driver},
              {"cases", report.case_names},
              {"points", {{"correct", report.correct_points}, {"speed", report.speed_points}}},
              {"speed_graded", true},
              {"timed_runs", kGradeTimedRuns},
              {"checks", report.checks},
              {"reference", student_json(report.reference)},
              {"students", std::move(students)}};
    return j.dump(2) + "\n";
}

namespace {

CaseStatus status_named(const std::string& name) {
    for (int i = 0; i <= int(CaseStatus::Error); ++i)
        if (name == case_status_name(CaseStatus(i))) return CaseStatus(i);
    return CaseStatus::Error;
}

// A time as time_json writes it; not measured when null or absent.
CaseTime time_from(const nlohmann::json& c, const char* key) {
    if (!c.contains(key) || !c[key].is_object()) return {};
    const nlohmann::json& t = c[key];
    return CaseTime{t.at("median_ms").get<double>(), t.at("min_ms").get<double>(), t.at("max_ms").get<double>(),
                    t.value("cpu_time", false)};
}

StudentResult student_from(const nlohmann::json& j) {
    StudentResult s;
    s.student = j.at("student").get<std::string>();
    s.file = j.at("file").get<std::string>();
    s.passed = j.at("passed").get<int>();
    s.correct_score = j.value("correct_score", 0.0);
    s.speed_score = j.value("speed_score", 0.0);
    s.score = j.at("score").get<double>();
    for (const nlohmann::json& c : j.at("cases")) {
        CaseResult r;
        r.name = c.at("case").get<std::string>();
        r.status = status_named(c.at("status").get<std::string>());
        if (c.at("error_kind").is_string())
            r.kind = error_kind_from_name(c.at("error_kind").get<std::string>()).value_or(ErrorKind::Unknown);
        r.message = c.at("message").get<std::string>();
        r.line = c.at("line").is_number() ? c.at("line").get<int>() : 0;
        r.max_error = c.at("max_error").get<double>();
        r.mismatches = c.at("mismatches").get<uint64_t>();
        if (c.contains("seed") && c["seed"].is_number()) r.seed = c["seed"].get<uint64_t>();
        r.time = time_from(c, "time");
        r.reference_time = time_from(c, "reference_time");
        r.checks = c.value("checks", std::string());
        const std::string speed = c.contains("speed") && c["speed"].is_string() ? c["speed"].get<std::string>() : "";
        r.speed = speed == "faster" ? SpeedVerdict::Faster
                  : speed == "same" ? SpeedVerdict::Same
                  : speed == "slower" ? SpeedVerdict::Slower
                                      : SpeedVerdict::None;
        r.speedup = c.contains("speedup") && c["speedup"].is_number() ? c["speedup"].get<double>() : 0;
        r.speed_fraction = c.value("speed_fraction", 0.0);
        r.key = c.value("key", std::string());
        s.cases.push_back(std::move(r));
    }
    return s;
}

}  // namespace

std::string grade_task_json(const GradeTask& task) {
    nlohmann::json j = {{"schema_version", kGradeSchemaVersion}, {"backend", task.backend}, {"device", task.device},
                        {"driver", task.driver},  {"checks", task.checks},   {"result", student_json(task.result)}};
    return j.dump(1) + "\n";
}

Result<GradeTask> read_grade_task(const std::string& json_text) {
    nlohmann::json j = nlohmann::json::parse(json_text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || j.value("schema_version", 0) != kGradeSchemaVersion)
        return make_error(ErrorKind::Metadata, "not a task result of this version of `cuda-playground grade`");
    try {
        GradeTask t;
        t.backend = j.at("backend").get<std::string>();
        t.device = j.at("device").get<std::string>();
        t.driver = j.at("driver").get<std::string>();
        t.checks = j.at("checks").get<std::string>();
        t.result = student_from(j.at("result"));
        return t;
    } catch (const nlohmann::json::exception& e) {
        return make_error(ErrorKind::Metadata, std::string("a task result is incomplete: ") + e.what());
    }
}

Result<GradeReport> read_grade_results(const std::string& json_text) {
    nlohmann::json j = nlohmann::json::parse(json_text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return make_error(ErrorKind::Metadata, "not a results.json of `cuda-playground grade`: it is not a JSON object");
    if (!j.contains("schema_version") || !j["schema_version"].is_number_integer() || j["schema_version"].get<int>() != kGradeSchemaVersion)
        return make_error(ErrorKind::Metadata,
                          "not a results.json of this version of `cuda-playground grade` (its schema_version is " +
                              (j.contains("schema_version") ? j["schema_version"].dump() : std::string("missing")) +
                              ", this version reads " + std::to_string(kGradeSchemaVersion) + "): grade the class again");
    try {
        GradeReport r;
        r.assignment = j.at("assignment").get<std::string>();
        r.backend = j.at("backend").get<std::string>();
        r.device = j.at("device").get<std::string>();
        r.driver = j.value("driver", std::string());
        r.case_names = j.at("cases").get<std::vector<std::string>>();
        r.correct_points = j.at("points").at("correct").get<int>();
        r.speed_points = j.at("points").at("speed").get<int>();
        r.checks = j.value("checks", std::string());
        r.reference = student_from(j.at("reference"));
        for (const nlohmann::json& s : j.at("students")) r.students.push_back(student_from(s));
        return r;
    } catch (const nlohmann::json::exception& e) {
        return make_error(ErrorKind::Metadata, std::string("results.json is incomplete: ") + e.what());
    }
}

std::string grade_results_csv(const GradeReport& report) {
    auto quoted = [](const std::string& s) {
        std::string q = "\"";
        for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c == '\n' ? ' ' : c);
        return q + "\"";
    };
    std::string out = "student,score,correct_score,speed_score,passed";
    for (const std::string& c : report.case_names) out += "," + quoted(c) + "," + quoted(c + " ms") + "," + quoted(c + " speedup");
    out += "\n";
    for (const StudentResult& s : report.students) {
        out += quoted(s.student) + "," + score_text(s.score) + "," + score_text(s.correct_score) + "," +
               score_text(s.speed_score) + "," + std::to_string(s.passed);
        for (const CaseResult& c : s.cases)
            out += std::string(",") + case_status_name(c.status) + "," +
                   (c.time.measured() ? score_text(c.time.median_ms) : std::string()) + "," +
                   (c.speedup > 0 ? score_text(c.speedup) : std::string());
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
.passed { background: #d8f0d8; } .wrong, .compile_error, .fault, .out_of_bounds, .race, .hang, .refused,
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

namespace {

// The geometric mean of a student's speed-ups over the cases that were timed; 0 when none.
double mean_speedup(const StudentResult& s) {
    double log_sum = 0;
    int n = 0;
    for (const CaseResult& c : s.cases)
        if (c.speedup > 0) {
            log_sum += std::log(c.speedup);
            ++n;
        }
    return n ? std::exp(log_sum / n) : 0;
}

// One strip per case: each passed student's median kernel time as a dot on a log axis (hover: the student and
// the time), the reference's as a red line. Static SVG, no script.
std::string times_plot(const GradeReport& report) {
    double lo = 0, hi = 0;
    auto widen = [&](double v) {
        if (!(v > 0)) return;
        lo = lo == 0 ? v : std::min(lo, v);
        hi = std::max(hi, v);
    };
    for (const CaseResult& c : report.reference.cases) widen(c.time.median_ms);
    for (const StudentResult& s : report.students)
        for (const CaseResult& c : s.cases)
            if (c.status == CaseStatus::Passed) widen(c.time.median_ms);
    if (hi <= 0) return "";
    // Whole decades around the times.
    const double d0 = std::floor(std::log10(lo)), d1 = std::max(d0 + 1, std::ceil(std::log10(hi)));
    const int left = 170, width = 640, row = 36, top = 24;
    const int height = top + row * int(report.case_names.size()) + 30;
    auto x_of = [&](double ms) { return left + (std::log10(ms) - d0) / (d1 - d0) * width; };
    char b[256];
    std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(left + width + 50) + "\" height=\"" +
                      std::to_string(height) + "\" font-family=\"sans-serif\" font-size=\"13\">\n";
    for (double d = d0; d <= d1; ++d) {
        const double x = x_of(std::pow(10.0, d));
        std::snprintf(b, sizeof b,
                      "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ccc\"/><text x=\"%.1f\" y=\"%d\" "
                      "text-anchor=\"middle\">%s ms</text>\n",
                      x, top - 8, x, height - 26, x, height - 10, score_text(std::pow(10.0, d)).c_str());
        svg += b;
    }
    for (size_t i = 0; i < report.case_names.size(); ++i) {
        const int y = top + row * int(i) + row / 2;
        svg += "<text x=\"" + std::to_string(left - 10) + "\" y=\"" + std::to_string(y + 4) + "\" text-anchor=\"end\">" +
               html_escaped(report.case_names[i]) + "</text>\n";
        for (const StudentResult& s : report.students) {
            if (i >= s.cases.size() || s.cases[i].status != CaseStatus::Passed || !s.cases[i].time.measured()) continue;
            const CaseResult& c = s.cases[i];
            const char* colour = c.speed == SpeedVerdict::Slower ? "#d08020" : c.speed == SpeedVerdict::Faster ? "#208040" : "#3060c0";
            std::snprintf(b, sizeof b, "<circle cx=\"%.1f\" cy=\"%d\" r=\"5\" fill=\"%s\" fill-opacity=\"0.6\"><title>", x_of(c.time.median_ms),
                          y, colour);
            svg += b + html_escaped(s.student) + ": " + score_text(c.time.median_ms) + " ms</title></circle>\n";
        }
        if (i < report.reference.cases.size() && report.reference.cases[i].time.measured()) {
            const double x = x_of(report.reference.cases[i].time.median_ms);
            std::snprintf(b, sizeof b,
                          "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#c02020\" stroke-width=\"2\"><title>reference: ",
                          x, y - row / 2 + 3, x, y + row / 2 - 3);
            svg += b + score_text(report.reference.cases[i].time.median_ms) + " ms</title></line>\n";
        }
    }
    return svg + "</svg>\n";
}

}  // namespace

std::vector<std::pair<std::string, std::string>> grade_results_html(const GradeReport& report) {
    std::vector<std::pair<std::string, std::string>> pages;
    const std::string title = "Results of " + fs::path(report.assignment).filename().string();
    const std::string points = std::to_string(report.correct_points + report.speed_points);
    std::string index = "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>" + html_escaped(title) +
                        "</title>\n" + kStyle + "</head><body>\n<h1>" + html_escaped(title) + "</h1>\n<p>" +
                        std::to_string(report.students.size()) + " submissions, " +
                        std::to_string(report.case_names.size()) + " hidden cases, on " + html_escaped(report.device) +
                        " (" + html_escaped(report.backend) +
                        (report.driver.empty() ? std::string() : ", driver " + html_escaped(report.driver)) + ")" +
                        (report.checks.empty() ? std::string() : "; each case also checked by " + html_escaped(report.checks)) +
                        ". Score out of " + points + ": " + std::to_string(report.correct_points) + " for correct results" +
                        (report.speed_points > 0 ? ", " + std::to_string(report.speed_points) +
                                                       " for speed against the reference kernel (a difference counts only "
                                                       "beyond the noise of the " + std::to_string(kGradeTimedRuns) + " timed runs)"
                                                 : std::string()) +
                        ". Click a column to sort by it.</p>\n<table>\n<thead><tr><th>student</th><th>score</th><th>passed</th>";
    for (const std::string& c : report.case_names) index += "<th>" + html_escaped(c) + "</th>";
    index += "<th>speed vs reference</th></tr></thead>\n<tbody>\n";
    for (size_t i = 0; i < report.students.size(); ++i) {
        const StudentResult& s = report.students[i];
        const double speedup = mean_speedup(s);
        index += "<tr><td><a href=\"" + student_page_name(i) + "\">" + html_escaped(s.student) + "</a></td><td>" +
                 score_text(s.score) + "</td><td>" + std::to_string(s.passed) + "</td>";
        for (const CaseResult& c : s.cases)
            index += std::string("<td class=\"") + case_status_name(c.status) + "\">" + case_status_name(c.status) + "</td>";
        // The verdict beside the ratio: a ratio within the noise is no speed-up.
        bool slower = false, all_faster = true, timed = false;
        for (const CaseResult& c : s.cases) {
            if (c.speed == SpeedVerdict::None) continue;
            timed = true;
            slower = slower || c.speed == SpeedVerdict::Slower;
            all_faster = all_faster && c.speed == SpeedVerdict::Faster;
        }
        const char* verdict = !timed ? "" : slower ? " slower" : all_faster ? " faster" : " same";
        index += "<td>" + (speedup > 0 ? score_text(speedup) + "×" + verdict : std::string("-")) + "</td></tr>\n";

        // The student's page.
        std::string page = "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>" + html_escaped(s.student) +
                           ": " + html_escaped(title) + "</title>\n" + kStyle + "</head><body>\n<p><a href=\"../index.html\">" +
                           html_escaped(title) + "</a></p>\n<h1>" + html_escaped(s.student) + "</h1>\n<p>" +
                           std::to_string(s.passed) + " of " + std::to_string(s.cases.size()) + " cases passed: " +
                           score_text(s.score) + " of " + points + " points (" + score_text(s.correct_score) +
                           " for correct results" +
                           (report.speed_points > 0 ? ", " + score_text(s.speed_score) + " for speed" : std::string()) +
                           ").</p>\n";
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
        for (size_t k = 0; k < s.cases.size(); ++k) {
            const CaseResult& c = s.cases[k];
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
            if (c.status == CaseStatus::Passed || c.status == CaseStatus::Wrong) {
                page += "<p>largest error " + score_text(c.max_error);
                if (c.time.measured()) {
                    page += ", kernel " + score_text(c.time.median_ms) + " ms (" + score_text(c.time.min_ms) + " to " +
                            score_text(c.time.max_ms) + ")";
                    if (c.reference_time.measured())
                        page += ", the reference's " + score_text(c.reference_time.median_ms) + " ms right after";
                    else if (k < report.reference.cases.size() && report.reference.cases[k].time.measured())
                        page += ", the reference's " + score_text(report.reference.cases[k].time.median_ms) + " ms";
                    if (c.speed != SpeedVerdict::None)
                        page += std::string(": ") + speed_verdict_name(c.speed) + " (" + score_text(c.speedup) + "×)";
                }
                page += "</p>\n";
            }
        }
        page += "</body></html>\n";
        pages.emplace_back(student_page_name(i), std::move(page));
    }
    index += "</tbody></table>\n";
    if (const std::string plot = times_plot(report); !plot.empty())
        index += "<h2>Kernel times of the passed cases</h2>\n<p>Each dot a student's median time (green: faster than "
                 "the reference beyond the noise, blue: the same, orange: slower); the red line the reference's.</p>\n" +
                 plot;
    index += std::string(kSortScript) + "</body></html>\n";
    pages.insert(pages.begin(), {"index.html", std::move(index)});
    return pages;
}

}  // namespace cp
