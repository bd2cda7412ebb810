// A graded class in the window (issue 40): File > Open of a `grade` results.json shows the Class panel's table
// (drawn, not blank); opening a student loads their submission with the case they failed first (its settings,
// seed included, as the run's choices), marks the grader's line in the editor (the marker's colour on screen),
// and the window's own run of that case ends as the grader said. Mistakes (a results.json of another version, a
// student without a file) end in messages, not in a crash.
#include "ui_test_support.h"

#include "core/backends/registry.h"
#include "core/session/assignment.h"
#include "core/session/grade.h"
#include "ui/state/class_results.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include "test_paths.h"

using namespace cp;
using namespace cp::uitest;

namespace {

namespace fs = std::filesystem;

const fs::path kWeek1 = fs::path(CP_TEST_DATA_DIR) / "grade" / "vector_add_week1.cu";

int class_line_of(const std::string& text, const std::string& needle) {
    const size_t at = text.find(needle);
    if (at == std::string::npos) return 0;
    return 1 + int(std::count(text.begin(), text.begin() + long(at), '\n'));
}

std::string class_file_text(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

// A class of three graded on the CPU backend in this process (as `grade` does), its results.json in `dir`.
fs::path graded_class(const fs::path& dir) {
    auto assignment = load_kernel_file(kWeek1);
    EXPECT_TRUE(assignment.ok());
    const std::string handout = students_copy(*assignment);
    const std::string body = "    if (i < n) c[i] = a[i] + b[i];";
    std::vector<Submission> subs;
    for (const auto& [name, line] : std::vector<std::pair<std::string, std::string>>{
             {"amy", body}, {"bob", "    c[i] = a[i] + b[i];  // no check"}, {"gina", ""}}) {
        if (line.empty()) {
            subs.push_back({name, {}});
            continue;
        }
        std::string text = handout;
        text.replace(text.find(body), body.size(), line);
        std::ofstream(dir / (name + ".cu")) << text;
        subs.push_back({name, dir / (name + ".cu")});
    }
    auto made = make_backend("cpu");
    EXPECT_TRUE(made.ok());
    Engine engine(std::move(made->backend));
    GradeReport report;
    report.assignment = kWeek1.string();
    report.backend = engine.device().backend;
    report.device = engine.device().name;
    report.correct_points = assignment->spec.grade.correct_points;
    report.speed_points = assignment->spec.grade.speed_points;
    report.checks = grade_checks(engine.device(), assignment->spec.grade.sanitize);
    for (const GradeCase& c : assignment->spec.grade.cases) report.case_names.push_back(c.name);
    auto reference = grade_reference(engine, *assignment);
    EXPECT_TRUE(reference.ok()) << (reference.ok() ? "" : reference.error().message);
    report.reference = *reference;
    report.students = grade_class({&engine}, *assignment, report.reference, subs);
    std::ofstream(dir / "results.json") << grade_results_json(report);
    return dir / "results.json";
}

}  // namespace

TEST(ClassWindow, OpeningResultsShowsTheClassAndAStudentOpensOnTheCaseTheyFailed) {
    ScopedUserDir user;
    test::TempDir dir;
    const fs::path results = graded_class(dir.path());
    auto made = ui::AppHost::create(projector_options(results.string()), {});
    ASSERT_TRUE(made.ok()) << made.error().full();
    ui::AppHost& host = **made;
    settle(host);
    ui::Workspace& ws = host.workspace();
    ASSERT_TRUE(ws.class_results().loaded());
    EXPECT_EQ(ws.class_results().report().students.size(), 3u);
    host.frame();
    host.frame();
    // The table is on screen, and not blank.
    const Rect table = window_rect("Class");
    ASSERT_GT(table.width(), 200);
    ASSERT_GT(table.height(), 100);
    auto shot = host.screenshot();
    ASSERT_TRUE(shot.ok());
    EXPECT_GT(distinct_colors(*shot, table), 8u);
    if (const char* d = std::getenv("CP_UI_TEST_SHOTS")) render::write_png(std::string(d) + "/class_panel.png", *shot);

    // bob: no bounds check, so out of bounds on `odd` (n = 100003, seed 5), his first failed case.
    const std::string said = ws.open_student(1);
    EXPECT_FALSE(said.empty());
    host.frame();
    const ui::KernelDocument& doc = document_of(ws);
    EXPECT_EQ(fs::absolute(doc.original_path()), fs::absolute(dir.path() / "bob.cu"));
    EXPECT_EQ(ws.inputs().choices.params.at("n"), 100003.0);
    EXPECT_EQ(ws.inputs().choices.seed, 5u);
    const int line = class_line_of(doc.text(), "c[i] = a[i] + b[i];  // no check");
    ASSERT_GT(line, 0);
    const auto& markers = ws.editor_panel().markers();
    ASSERT_FALSE(markers.empty());
    EXPECT_EQ(markers[0].line, line);
    settle(host);
    // The window's own run of the case says what the grader said: out of bounds, on that line.
    ASSERT_TRUE(ws.latest().has_value());
    ASSERT_TRUE(ws.latest()->report.error.has_value());
    EXPECT_EQ(ws.latest()->report.error->kind, ErrorKind::OutOfBounds);
    EXPECT_EQ(ws.latest()->report.error_line, line);
    host.frame();
    auto marked = host.screenshot();
    ASSERT_TRUE(marked.ok());
    EXPECT_GT(marker_red_pixels(*marked, ws.editor_panel(), line), 20) << "no marker drawn on line " << line;
    // The README's picture of the Class panel (docs/images/grade_class_panel.png).
    if (const char* d = std::getenv("CP_UI_TEST_SHOTS")) render::write_png(std::string(d) + "/grade_class_panel.png", *marked);

    // gina handed in no file: a message, the open document stays bob's.
    const std::string none = ws.open_student(2);
    EXPECT_FALSE(none.empty());
    EXPECT_EQ(fs::absolute(document_of(ws).original_path()), fs::absolute(dir.path() / "bob.cu"));
}

TEST(ClassWindow, ResultsOfAnotherVersionOrWithoutAFileAreRefusedWithAMessage) {
    test::TempDir dir;
    ui::ClassResults results;
    const fs::path old = dir.write("old.json", "{\"schema_version\": 1, \"students\": []}");
    auto refused = results.load(old);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().kind, ErrorKind::Metadata);
    EXPECT_FALSE(results.loaded());
    const fs::path junk = dir.write("junk.json", "not json at all");
    EXPECT_EQ(results.load(junk).error().kind, ErrorKind::Metadata);
    const fs::path real = graded_class(dir.path());
    ASSERT_TRUE(results.load(real).ok());
    EXPECT_EQ(results.open(2).error().kind, ErrorKind::UserInput);  // gina: no file
    auto amy = results.open(0);
    ASSERT_TRUE(amy.ok()) << amy.error().message;
    EXPECT_TRUE(amy->case_name.empty());  // she passed all: the first case is loaded
    EXPECT_EQ(amy->choices.params.at("n"), 65536.0);
    // A missing file after the grading: an Io error naming it.
    fs::remove(dir.path() / "bob.cu");
    EXPECT_EQ(results.open(1).error().kind, ErrorKind::Io);
    // Of the results read, the statuses are the grader's.
    EXPECT_EQ(results.report().students[1].cases[1].status, CaseStatus::OutOfBounds);
    EXPECT_EQ(class_file_text(real).find("\"schema_version\": 2") != std::string::npos, true);
}
