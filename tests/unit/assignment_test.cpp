// Assignments (issue 40, item 1): a lesson's `grade ...` lines read into its hidden cases and scoring, each
// mistake refused on its own line, the students' copy without them, and each case as the choices a run takes.
#include "core/session/assignment.h"
#include "core/session/grade.h"
#include "core/backends/registry.h"
#include "core/session/report_text.h"
#include "core/session/session.h"
#include "support/process.h"
#include "unit/diagnostics_text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "test_paths.h"

namespace cp {
namespace {

using test::dump;
using test::errors_of;

const std::filesystem::path kAssignment = std::filesystem::path(CP_TEST_DATA_DIR) / "grade" / "vector_add_assignment.cu";

std::string assignment_source() { return test::read_file(kAssignment); }

int line_in(const std::string& source, const std::string& text) {
    const size_t at = source.find(text);
    EXPECT_NE(at, std::string::npos) << text;
    return 1 + int(std::count(source.begin(), source.begin() + long(at), '\n'));
}

// The assignment with `from` replaced by `to` (which may hold several lines, or none).
std::string assignment_with(const std::string& from, const std::string& to) {
    std::string s = assignment_source();
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    s.replace(at, from.size(), to);
    return s;
}

std::vector<int> assignment_error_lines(const KernelFile& f) {
    std::vector<int> lines;
    for (const Diagnostic& d : errors_of(f)) lines.push_back(d.line);
    return lines;
}

TEST(Assignment, TheGradeLinesAreReadIntoCasesAndScoring) {
    const std::string src = assignment_source();
    const KernelFile f = parse_kernel_source(src, kAssignment);
    ASSERT_TRUE(f.usable()) << dump(f);
    const GradeSpec& g = f.spec.grade;
    ASSERT_TRUE(g.enabled());
    ASSERT_EQ(g.cases.size(), 3u);
    EXPECT_EQ(g.cases[0].name, "small");
    EXPECT_EQ(g.cases[1].name, "odd");
    EXPECT_EQ(g.cases[2].name, "one");
    using Sets = std::vector<std::pair<std::string, std::string>>;
    EXPECT_EQ(g.cases[1].sets, (Sets{{"n", "1000003"}}));
    EXPECT_EQ(g.cases[1].line, line_in(src, "grade case odd"));
    ASSERT_TRUE(g.tolerance.has_value());
    EXPECT_DOUBLE_EQ(*g.tolerance, 1e-6);
    EXPECT_DOUBLE_EQ(g.time_limit_s, 5.0);
    EXPECT_TRUE(g.sanitize);
    EXPECT_EQ(g.correct_points, 80);
    EXPECT_EQ(g.speed_points, 20);
    EXPECT_EQ(g.lines.size(), 7u);
    EXPECT_EQ(g.lines.front(), line_in(src, "grade case small"));
    EXPECT_EQ(g.lines.back(), line_in(src, "grade score"));
    // A lesson without the lines is no assignment.
    EXPECT_FALSE(parse_kernel_source(test::read_file(std::filesystem::path(CP_SOURCE_DIR) / "kernels" / "basics" /
                                                     "vector_add.cu"),
                                     "vector_add.cu")
                     .spec.grade.enabled());
}

TEST(Assignment, SeveralSettingsAQuotedImageAndDefaults) {
    const std::string src = assignment_with("grade case one: n = 1\n",
                                 "grade case one: n = 1\ngrade case both: n = 77, n2 = 5\ngrade case as_written: defaults\n");
    // n2 is no param of the header: refused on its line, the others read.
    const KernelFile f = parse_kernel_source(src, kAssignment);
    EXPECT_EQ(assignment_error_lines(f), std::vector<int>{line_in(src, "grade case both")}) << dump(f);
    ASSERT_EQ(f.spec.grade.cases.size(), 5u);
    EXPECT_EQ(f.spec.grade.cases[3].sets.size(), 2u);
    EXPECT_TRUE(f.spec.grade.cases[4].sets.empty());

    // An image lesson's case sets the picture (quoted or not); its derived size cannot be set.
    const std::string image = test::read_file(std::filesystem::path(CP_SOURCE_DIR) / "kernels" / "image" / "grayscale.cu");
    const size_t end = image.find("*/");
    ASSERT_NE(end, std::string::npos);
    std::string a = image;
    a.insert(end, "grade case photo: src = \"street.png\"\ngrade case sized: width = 100\n");
    const KernelFile fi = parse_kernel_source(a, "grayscale.cu");
    EXPECT_EQ(assignment_error_lines(fi), std::vector<int>{line_in(a, "grade case sized")}) << dump(fi);
    ASSERT_EQ(fi.spec.grade.cases.size(), 2u);
    using Sets = std::vector<std::pair<std::string, std::string>>;
    EXPECT_EQ(fi.spec.grade.cases[0].sets, (Sets{{"src", "street.png"}}));
}

TEST(Assignment, EachMistakeIsRefusedOnItsLine) {
    struct Bad {
        const char* from;
        const char* to;
        const char* line;  // the text of the line the error is on
    };
    const std::vector<Bad> bad = {
        {"grade case odd: n = 1000003", "grade case odd: m = 3", "grade case odd"},             // no such param
        {"grade case odd: n = 1000003", "grade case small: n = 3", "grade case small: n = 3"},  // a name twice
        {"grade case odd: n = 1000003", "grade case odd: c = 3", "grade case odd"},             // an output buffer
        {"grade case odd: n = 1000003", "grade case odd: n = 3, n = 4", "grade case odd"},      // a setting twice
        {"grade case odd: n = 1000003", "grade case odd: n", "grade case odd"},                 // no `=`
        {"grade case odd: n = 1000003", "grade case: n = 3", "grade case: n"},                  // no case name
        {"grade case odd: n = 1000003", "grade case o/d: n = 3", "grade case o/d"},             // not a word
        {"grade score: correct 80, speed 20", "grade score: correct 70, speed 20", "grade score"},
        {"grade score: correct 80, speed 20", "grade score: correct 80, speed twenty", "grade score"},
        {"grade time: 5 s", "grade time: 0 s", "grade time"},
        {"grade time: 5 s", "grade time: soon", "grade time"},
        {"grade sanitize: yes", "grade sanitize: maybe", "grade sanitize"},
        {"grade tolerance: 1e-6", "grade tolerance: -1", "grade tolerance"},
        {"grade tolerance: 1e-6", "grade tolerance: 1e-6\ngrade tolerance: 1", "grade tolerance: 1\n"},
        {"grade sanitize: yes", "grade frob: 1", "grade frob"},
        {"grade sanitize: yes", "grade sanitize:", "grade sanitize"},
    };
    for (const Bad& b : bad) {
        SCOPED_TRACE(b.to);
        const std::string src = assignment_with(b.from, b.to);
        const KernelFile f = parse_kernel_source(src, kAssignment);
        EXPECT_EQ(assignment_error_lines(f), std::vector<int>{line_in(src, b.line)}) << dump(f);
        for (const Diagnostic& d : errors_of(f)) EXPECT_GT(d.column, 0);
    }
    // No case at all; no reference to check against: on the first grade line.
    {
        std::string src = assignment_source();
        for (const char* c : {"grade case small: n = 1000\n", "grade case odd: n = 1000003\n", "grade case one: n = 1\n"})
            src.erase(src.find(c), std::string(c).size());
        const KernelFile f = parse_kernel_source(src, kAssignment);
        EXPECT_EQ(assignment_error_lines(f), std::vector<int>{line_in(src, "grade tolerance")}) << dump(f);
    }
    {
        std::string src = assignment_with("reference: vector_add_reference\n", "");
        const KernelFile f = parse_kernel_source(src, kAssignment);
        EXPECT_EQ(assignment_error_lines(f), std::vector<int>{line_in(src, "grade case small")}) << dump(f);
    }
}

TEST(Assignment, TheStudentsCopyIsTheFileWithoutItsGradeLines) {
    const std::string src = assignment_source();
    const KernelFile f = parse_kernel_source(src, kAssignment);
    ASSERT_TRUE(f.usable()) << dump(f);
    const std::string copy = students_copy(f);
    // Every line but the grade lines, in order and as written.
    std::string expected;
    size_t start = 0;
    while (start < src.size()) {
        const size_t next = std::min(src.find('\n', start), src.size() - 1) + 1;
        const std::string line = src.substr(start, next - start);
        if (line.rfind("grade ", 0) != 0) expected += line;
        start = next;
    }
    EXPECT_EQ(copy, expected);
    EXPECT_EQ(copy.find("grade "), std::string::npos);
    EXPECT_EQ(copy.find("1000003"), std::string::npos);  // a hidden size is not in it
    const KernelFile reread = parse_kernel_source(copy, kAssignment);
    EXPECT_TRUE(reread.usable()) << dump(reread);
    EXPECT_FALSE(reread.spec.grade.enabled());
    EXPECT_EQ(reread.spec.reference, f.spec.reference);
    EXPECT_EQ(reread.spec.params.size(), f.spec.params.size());
    EXPECT_EQ(reread.spec.buffers.size(), f.spec.buffers.size());
}

TEST(Assignment, EachCaseBecomesTheChoicesOfARun) {
    const KernelFile f = parse_kernel_source(assignment_source(), kAssignment);
    ASSERT_TRUE(f.usable()) << dump(f);
    auto cases = grade_case_choices(f);
    ASSERT_TRUE(cases.ok()) << cases.error().full();
    ASSERT_EQ(cases->size(), 3u);
    const std::vector<double> n = {1000, 1000003, 1};
    for (size_t i = 0; i < n.size(); ++i) {
        EXPECT_EQ((*cases)[i].grade_case->name, f.spec.grade.cases[i].name);
        ASSERT_EQ((*cases)[i].choices.params.count("n"), 1u);
        EXPECT_EQ((*cases)[i].choices.params.at("n"), n[i]);
    }
    // A value a run would refuse (out of the header's range, not a number) is refused as the user's input.
    for (const char* value : {"1e12", "0", "many"}) {
        SCOPED_TRACE(value);
        const KernelFile bad =
            parse_kernel_source(assignment_with("grade case odd: n = 1000003", std::string("grade case odd: n = ") + value), kAssignment);
        ASSERT_TRUE(bad.usable()) << dump(bad);
        auto refused = grade_case_choices(bad);
        ASSERT_FALSE(refused.ok());
        EXPECT_EQ(refused.error().kind, ErrorKind::UserInput);
    }
}

}  // namespace
}  // namespace cp

namespace cp {
namespace {

// A submission is graded as the student's code at its own lines with the assignment's header and reference: a
// changed tolerance, a changed reference and a removed header count for nothing.
TEST(Assignment, ASubmissionIsGradedWithTheAssignmentsHeaderAndReferenceAtTheStudentsLines) {
    const KernelFile assignment = parse_kernel_source(assignment_source(), kAssignment);
    ASSERT_TRUE(assignment.usable()) << dump(assignment);
    std::string copy = students_copy(assignment);
    const std::string body = "    if (i < n) c[i] = a[i] + b[i];";
    const std::string mine = "    if (i < n) c[i] = a[i] - b[i];  // mine";
    copy.replace(copy.find(body), body.size(), mine);
    copy.replace(copy.find("tolerance: 1e-6"), std::string("tolerance: 1e-6").size(), "tolerance: 100");
    const std::string ref = "c[i] = a[i] + b[i];\n}\n#endif";
    copy.replace(copy.find(ref), ref.size(), "c[i] = a[i] - b[i];\n}\n#endif");
    const KernelFile graded = graded_file(assignment, copy, "student.cu");
    ASSERT_TRUE(graded.usable()) << dump(graded);
    EXPECT_DOUBLE_EQ(graded.spec.tolerance, 1e-6);
    // The student's line is where it was.
    auto line_at = [](const std::string& s, int n) {
        size_t start = 0;
        for (int i = 1; i < n; ++i) start = s.find('\n', start) + 1;
        return s.substr(start, s.find('\n', start) - start);
    };
    EXPECT_EQ(line_at(graded.source, line_in(copy, "// mine")), mine);
    // The reference the run compiles is the assignment's, and the student's is gone.
    EXPECT_NE(graded.source.find("for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];"), std::string::npos);
    EXPECT_EQ(graded.source.find("c[i] = a[i] - b[i];\n}\n#endif"), std::string::npos);
    EXPECT_EQ(graded.spec.reference, "vector_add_reference");
    EXPECT_FALSE(graded.spec.grade.enabled());  // the hidden lines do not travel with it

    // Without a header of its own the student's lines stay too, and the header comes from the assignment.
    std::string bare = copy.substr(copy.find("*/") + 2);
    const KernelFile graded_bare = graded_file(assignment, bare, "bare.cu");
    ASSERT_TRUE(graded_bare.usable()) << dump(graded_bare);
    EXPECT_EQ(line_at(graded_bare.source, line_in(bare, "// mine")), mine);
    EXPECT_EQ(graded_bare.spec.params.size(), assignment.spec.params.size());
}

}  // namespace
}  // namespace cp

namespace cp {
namespace {

TEST(Assignment, ACasesSeedIsReadApartFromItsSettingsAndBadOnesAreRefused) {
    const std::string src = assignment_with("grade case odd: n = 1000003", "grade case odd: n = 1000003, seed = 9");
    const KernelFile f = parse_kernel_source(src, kAssignment);
    ASSERT_TRUE(assignment_error_lines(f).empty()) << dump(f);
    const GradeCase& odd = f.spec.grade.cases[1];
    EXPECT_EQ(odd.seed, 9u);
    EXPECT_EQ(odd.sets, (std::vector<std::pair<std::string, std::string>>{{"n", "1000003"}}));
    EXPECT_FALSE(f.spec.grade.cases[0].seed.has_value());
    auto choices = grade_case_choices(f);
    ASSERT_TRUE(choices.ok()) << choices.error().message;
    EXPECT_EQ((*choices)[1].choices.seed, 9u);
    EXPECT_FALSE((*choices)[0].choices.seed.has_value());
    for (const char* bad : {"seed = -1", "seed = many", "seed = 1.5", "seed = 1, seed = 2"}) {
        SCOPED_TRACE(bad);
        const std::string s = assignment_with("grade case odd: n = 1000003", std::string("grade case odd: n = 3, ") + bad);
        EXPECT_EQ(assignment_error_lines(parse_kernel_source(s, kAssignment)), std::vector<int>{line_in(s, "grade case odd")});
    }
}

// RunChoices::seed on a session: another seed, other random inputs (the check still against them, so the run
// matches); the same seed, the same inputs; no seed, the header's.
TEST(Assignment, ASeedChangesEveryRandomInputAndTheCheckFollowsIt) {
    auto made = make_backend("cpu");
    ASSERT_TRUE(made.ok()) << made.error().full();
    Engine engine(std::move(made->backend));
    KernelSession session(engine);
    session.set_kernel(load_kernel_file(std::filesystem::path(CP_SOURCE_DIR) / "kernels" / "basics" / "vector_add.cu").value());
    auto output = [&](std::optional<uint64_t> seed) {
        RunChoices choices;
        choices.params["n"] = 1001;
        choices.seed = seed;
        session.set_choices(choices);
        const RunReport r = session.run();
        EXPECT_TRUE(r.ok()) << (r.error ? r.error->message : "");
        EXPECT_EQ(check_state(r), CheckState::Matches);
        return r.outputs.at("c").bytes;
    };
    const auto header = output(std::nullopt), five = output(5), six = output(6), five_again = output(5);
    EXPECT_NE(header, five);
    EXPECT_NE(five, six);
    EXPECT_EQ(five, five_again);
    EXPECT_EQ(header, output(std::nullopt));
}

}  // namespace
}  // namespace cp

namespace cp {
namespace {

// The speed rule on given times: a verdict only beyond both measurements' noise (half the range, at least 5% of
// the median and 5 µs on a GPU, 50% and 50 µs on the CPU backend), and the points that follow.
TEST(Assignment, SpeedIsJudgedOnlyBeyondTheNoiseAndScoredByTheReferencesTimeOverTheStudents) {
    const CaseTime ref{1.0, 0.98, 1.02, false};
    EXPECT_DOUBLE_EQ(ref.noise_ms(), 0.05);  // the 5% floor over the 0.02 half range
    EXPECT_EQ(speed_verdict(CaseTime{1.09, 1.08, 1.10, false}, ref), SpeedVerdict::Same);    // within 0.05 + 0.0545
    EXPECT_EQ(speed_verdict(CaseTime{1.2, 1.19, 1.21, false}, ref), SpeedVerdict::Slower);
    EXPECT_EQ(speed_verdict(CaseTime{0.8, 0.79, 0.81, false}, ref), SpeedVerdict::Faster);
    EXPECT_EQ(speed_verdict(CaseTime{1.2, 0.7, 1.7, false}, ref), SpeedVerdict::Same);      // its own range is wide
    EXPECT_EQ(speed_verdict(CaseTime{}, ref), SpeedVerdict::None);                          // not timed
    EXPECT_DOUBLE_EQ((CaseTime{0.001, 0.001, 0.001, false}).noise_ms(), 0.005);           // 5 µs at least
    EXPECT_DOUBLE_EQ((CaseTime{1.0, 1.0, 1.0, true}).noise_ms(), 0.5);                    // the CPU's clock
    EXPECT_EQ(speed_verdict(CaseTime{1.9, 1.9, 1.9, true}, CaseTime{1.0, 1.0, 1.0, true}), SpeedVerdict::Same);
    EXPECT_EQ(speed_verdict(CaseTime{16, 16, 16, true}, CaseTime{1.0, 1.0, 1.0, true}), SpeedVerdict::Slower);

    GradeSpec g;
    g.cases.resize(3);
    g.correct_points = 70;
    g.speed_points = 30;
    StudentResult reference;
    for (const char* name : {"a", "b", "c"}) {
        CaseResult c;
        c.name = name;
        c.status = CaseStatus::Passed;
        c.time = ref;
        reference.cases.push_back(c);
    }
    StudentResult s = reference;
    s.cases[0].time = CaseTime{2.0, 1.99, 2.01, false};  // twice as slow: half its share
    s.cases[1].time = CaseTime{0.5, 0.49, 0.51, false};  // faster: its whole share, no more
    s.cases[2].status = CaseStatus::Wrong;               // not passed: nothing
    score_speed(s, reference, g);
    EXPECT_EQ(s.cases[0].speed, SpeedVerdict::Slower);
    EXPECT_DOUBLE_EQ(s.cases[0].speedup, 0.5);
    EXPECT_DOUBLE_EQ(s.cases[0].speed_fraction, 0.5);
    EXPECT_EQ(s.cases[1].speed, SpeedVerdict::Faster);
    EXPECT_DOUBLE_EQ(s.cases[1].speed_fraction, 1.0);
    EXPECT_EQ(s.cases[2].speed, SpeedVerdict::None);
    EXPECT_DOUBLE_EQ(s.cases[2].speed_fraction, 0.0);
    EXPECT_EQ(s.passed, 2);
    EXPECT_DOUBLE_EQ(s.correct_score, 70.0 * 2 / 3);
    EXPECT_DOUBLE_EQ(s.speed_score, 30.0 * 1.5 / 3);
    EXPECT_DOUBLE_EQ(s.score, s.correct_score + s.speed_score);
}

}  // namespace
}  // namespace cp
