// `cuda-playground grade` (issue 40): a small made-up class graded on the CPU backend, each student's result per
// case checked (a right kernel; no bounds check; a missing `;`; a wrong sum with the reference and tolerance of
// the copy changed to match it; wrong beyond 4096 elements only; a folder without a .cu file; a null write), the
// line each error points at the student's own, results.csv agreeing with results.json; a kernel that never ends
// stopped by the time limit while the next submission still passes; mistakes of the command refused.
#include "cli/cli_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>

#include "test_paths.h"

namespace cp::test {
namespace {

namespace fs = std::filesystem;

const fs::path kGradeData = fs::path(CP_TEST_DATA_DIR) / "grade";

int line_with(const fs::path& file, const std::string& text) {
    const std::string s = read_file(file);
    const size_t at = s.find(text);
    EXPECT_NE(at, std::string::npos) << text << " in " << file;
    return 1 + int(std::count(s.begin(), s.begin() + long(at), '\n'));
}

// The class, made as students make theirs: the assignment's students' copy (export --for-students), each with
// the kernel's line changed, in `dir`/class.
fs::path make_class(const TempDir& dir) {
    const ProcessResult r = cli({"export", (kGradeData / "vector_add_assignment.cu").string(), "--for-students",
                                 "--out", (dir.path() / "handout.cu").string()});
    EXPECT_EQ(r.exit_code, 0) << r.both();
    const std::string handout = read_file(dir.path() / "handout.cu");
    const std::string body = "    if (i < n) c[i] = a[i] + b[i];";
    auto student = [&](const std::string& name, const std::string& line, const std::string& from = {},
                       const std::string& to = {}) {
        std::string s = handout;
        EXPECT_NE(s.find(body), std::string::npos);
        s.replace(s.find(body), body.size(), line);
        if (!from.empty()) {
            EXPECT_NE(s.find(from), std::string::npos) << from;
            s.replace(s.find(from), from.size(), to);
        }
        dir.write("class/" + name, s);
    };
    student("alice.cu", body);
    student("bob.cu", "    c[i] = a[i] + b[i];  // the grid covers n exactly, surely");
    student("carol.cu", "    if (i < n) c[i] = a[i] + b[i]");
    // A wrong sum, with the copy's reference and tolerance changed to agree with it.
    student("eve.cu", "    if (i < n) c[i] = a[i] - b[i];", "for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];",
            "for (int i = 0; i < n; ++i) c[i] = a[i] - b[i];  // now it matches");
    student("frank/vector_add.cu", "    if (i < n && i < 4096) c[i] = a[i] + b[i];");
    dir.write("class/gina/README.txt", "my kernel is in my other folder\n");
    student("gus.cu", "    if (i == n / 2) *(volatile int*)nullptr = 1;\n    if (i < n) c[i] = a[i] + b[i];");
    return dir.path() / "class";
}

struct Expected {
    std::vector<std::string> statuses;  // per case: small (n = 1000), odd (n = 1000003), one (n = 1)
    int line = 0;                       // of the first failing case; 0: none
};

TEST(Grade, ASmallClassOnTheCpuBackendEachStudentsResultPerCase) {
    TempDir dir;
    const fs::path cls = make_class(dir);
    ProcessResult r = cli({"grade", (kGradeData / "vector_add_assignment.cu").string(), cls.string(), "--backend", "cpu",
                           "--out", (dir.path() / "results").string()});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    const nlohmann::json j = nlohmann::json::parse(read_file(dir.path() / "results" / "results.json"));
    EXPECT_EQ(j.at("schema_version"), 2);
    EXPECT_EQ(j.at("backend"), "cpu");
    EXPECT_EQ(j.at("cases"), nlohmann::json::array({"small", "odd", "one"}));

    // frank's kernel stops at 4096 elements: right where n is at most that.
    std::vector<std::string> frank;
    for (int n : {1000, 1000003, 1}) frank.push_back(n <= 4096 ? "passed" : "wrong");
    const std::vector<std::string> all_passed(3, "passed");
    const std::map<std::string, Expected> expected = {
        {"alice", {all_passed}},
        {"bob", {std::vector<std::string>(3, "out_of_bounds"), line_with(cls / "bob.cu", "c[i] = a[i] + b[i];  //")}},
        // NVRTC names the token after the missing `;`: the closing brace on the next line.
        {"carol", {std::vector<std::string>(3, "compile_error"), line_with(cls / "carol.cu", "c[i] = a[i] + b[i]\n") + 1}},
        {"eve", {std::vector<std::string>(3, "wrong")}},
        {"frank", {frank}},
        {"gina", {std::vector<std::string>(3, "error")}},
        {"gus", {std::vector<std::string>(3, "fault"), line_with(cls / "gus.cu", "nullptr")}},
    };
    ASSERT_EQ(j.at("students").size(), expected.size());
    for (const auto& s : j.at("students")) {
        const std::string name = s.at("student");
        SCOPED_TRACE(name);
        ASSERT_EQ(expected.count(name), 1u);
        const Expected& e = expected.at(name);
        ASSERT_EQ(s.at("cases").size(), 3u);
        int passed = 0;
        for (size_t i = 0; i < 3; ++i) {
            const auto& c = s.at("cases")[i];
            EXPECT_EQ(c.at("case"), j.at("cases")[i]);
            EXPECT_EQ(c.at("status"), e.statuses[i]) << c.dump();
            passed += e.statuses[i] == "passed";
            if (e.statuses[i] == "passed") {
                EXPECT_EQ(c.at("max_error"), 0.0);
                EXPECT_TRUE(c.at("kernel_ms").is_number());
                EXPECT_TRUE(c.at("speed").is_string());
                EXPECT_TRUE(c.at("error_kind").is_null());
            }
            if (e.statuses[i] == "wrong") {
                EXPECT_GT(c.at("mismatches").get<uint64_t>(), 0u);
                EXPECT_GT(c.at("max_error").get<double>(), 1e-6);
            }
            if (e.line > 0) {
                EXPECT_EQ(c.at("line"), e.line);
            }
        }
        EXPECT_EQ(s.at("passed"), passed);
        EXPECT_DOUBLE_EQ(s.at("correct_score").get<double>(), 80.0 * passed / 3.0);
        EXPECT_DOUBLE_EQ(s.at("score").get<double>(), s.at("correct_score").get<double>() + s.at("speed_score").get<double>());
    }
    // The kinds behind the statuses.
    auto kind_of = [&](const std::string& student) {
        for (const auto& s : j.at("students"))
            if (s.at("student") == student) return s.at("cases")[0].at("error_kind").get<std::string>();
        return std::string();
    };
    EXPECT_EQ(kind_of("bob"), "out_of_bounds");
    EXPECT_EQ(kind_of("carol"), "compile");
    EXPECT_EQ(kind_of("gus"), "fault");

    // results.csv: a row per student, the statuses of results.json.
    const std::string csv = read_file(dir.path() / "results" / "results.csv");
    for (const auto& s : j.at("students")) {
        std::string row = "\"" + s.at("student").get<std::string>() + "\",";
        const size_t at = csv.find("\n" + row);
        ASSERT_NE(at, std::string::npos) << row;
        const std::string line = csv.substr(at + 1, csv.find('\n', at + 1) - at - 1);
        for (const auto& c : s.at("cases")) EXPECT_NE(line.find("," + c.at("status").get<std::string>()), std::string::npos);
    }
}

TEST(Grade, AKernelThatNeverEndsIsStoppedAndTheNextSubmissionStillRuns) {
    TempDir dir;
    const std::string copy = read_file(make_class(dir) / "alice.cu");
    std::string spins = copy;
    const std::string body = "    if (i < n) c[i] = a[i] + b[i];";
    ASSERT_NE(spins.find(body), std::string::npos);
    spins.replace(spins.find(body), body.size(), "    while (true) {}");
    dir.write("spinning/a_spins.cu", spins);
    dir.write("spinning/b_right.cu", copy);
    // The assignment with one case, so that the test waits for one time limit.
    std::string assignment = read_file(kGradeData / "vector_add_assignment.cu");
    for (const char* c : {"grade case small: n = 1000\n", "grade case one: n = 1\n"})
        assignment.erase(assignment.find(c), std::string(c).size());
    const fs::path a = dir.write("assignment.cu", assignment);
    ProcessResult r = cli({"grade", a.string(), (dir.path() / "spinning").string(), "--backend", "cpu", "--out",
                           (dir.path() / "out").string(), "--json", "-"},
                          {"CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S=1"});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    const nlohmann::json j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j.at("students").size(), 2u);
    EXPECT_EQ(j.at("students")[0].at("student"), "a_spins");
    EXPECT_EQ(j.at("students")[0].at("cases")[0].at("status"), "hang");
    EXPECT_EQ(j.at("students")[0].at("cases")[0].at("error_kind"), "hang");
    EXPECT_EQ(j.at("students")[1].at("cases")[0].at("status"), "passed");
    EXPECT_EQ(nlohmann::json::parse(read_file(dir.path() / "out" / "results.json")), j);
}

// The pages to hand back: the class page links each student's page, whose case headings carry the statuses and
// whose excerpt marks the student's own line; a name and a source line that hold HTML are shown as text.
TEST(Grade, ThePagesShowEachStudentsResultsWithTheirLinesAndNoHtmlOfTheirs) {
    TempDir dir;
    const fs::path cls = make_class(dir);
    std::string bob = read_file(cls / "bob.cu");
    const std::string marker = "    c[i] = a[i] + b[i];  //";
    bob.insert(bob.find(marker), "    // </pre><script>alert(1)</script>\n");
    const fs::path mallory = dir.write("pages/<i>mallory&co/k.cu", bob);
    dir.write("pages/alice.cu", read_file(cls / "alice.cu"));
    const ProcessResult r = cli({"grade", (kGradeData / "vector_add_assignment.cu").string(), (dir.path() / "pages").string(),
                                 "--backend", "cpu", "--out", (dir.path() / "out").string()});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    const std::string index = read_file(dir.path() / "out" / "index.html");
    // Students sorted by name: "<i>mallory&co" before "alice".
    EXPECT_NE(index.find("<a href=\"students/001.html\">&lt;i&gt;mallory&amp;co</a>"), std::string::npos) << index;
    EXPECT_NE(index.find("<a href=\"students/002.html\">alice</a>"), std::string::npos) << index;
    EXPECT_EQ(index.find("<i>mallory"), std::string::npos);
    size_t passed_cells = 0;
    for (size_t at = index.find("<td class=\"passed\">"); at != std::string::npos; at = index.find("<td class=\"passed\">", at + 1))
        ++passed_cells;
    EXPECT_EQ(passed_cells, 3u);  // alice's three cases
    const std::string page = read_file(dir.path() / "out" / "students" / "001.html");
    EXPECT_EQ(page.find("<script>alert"), std::string::npos);
    EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
    const int line = line_with(mallory, marker);
    EXPECT_NE(page.find("<span class=\"here\">" + std::to_string(line) + "  " + marker), std::string::npos) << page;
    EXPECT_NE(page.find("<h2 class=\"out_of_bounds\">odd: out_of_bounds</h2>"), std::string::npos);
    EXPECT_TRUE(fs::exists(dir.path() / "out" / "students" / "002.html"));
}

// --jobs 2: two submissions at a time, each on a CPU worker of its own; the same results as one at a time (the
// times and the speed points aside), students in the same order.
TEST(Grade, TwoAtATimeGiveTheSameResultsAsOneAtATime) {
    TempDir dir;
    const fs::path cls = make_class(dir);
    auto graded = [&](const std::string& jobs) {
        const ProcessResult r = cli({"grade", (kGradeData / "vector_add_assignment.cu").string(), cls.string(),
                                     "--backend", "cpu", "--jobs", jobs, "--out", (dir.path() / ("out" + jobs)).string(),
                                     "--json", "-"});
        EXPECT_EQ(r.exit_code, 0) << r.both();
        nlohmann::json j = nlohmann::json::parse(r.out);
        // Times and what follows from them aside.
        j.erase("reference");
        for (auto& s : j.at("students")) {
            for (const char* key : {"speed_score", "score"}) s.erase(key);
            for (auto& c : s.at("cases"))
                for (const char* key : {"kernel_ms", "time", "reference_time", "speed", "speedup", "speed_fraction"}) c.erase(key);
        }
        return j;
    };
    const nlohmann::json one = graded("1"), two = graded("2");
    EXPECT_EQ(one.at("students").size(), 7u);
    EXPECT_EQ(one, two);
}

TEST(Grade, MistakesOfTheCommandAreRefused) {
    TempDir dir;
    const std::string assignment = (kGradeData / "vector_add_assignment.cu").string();
    fs::create_directories(dir.path() / "empty");
    const std::vector<std::vector<std::string>> bad = {
        {"grade", "basics/vector_add", make_class(dir).string()},               // not an assignment
        {"grade", assignment, (dir.path() / "missing").string()},                // no such folder
        {"grade", assignment, (dir.path() / "empty").string()},                  // no submission
        {"grade", assignment},                                                   // no folder given
        {"grade", assignment, make_class(dir).string(), "--jobs", "0"},          // no job
        {"grade", assignment, make_class(dir).string(), "--jobs", "two"},
        {"grade", assignment, make_class(dir).string(), "--jobs", "2", "--slurm", "--gres=none"},  // both
        {"grade", assignment, make_class(dir).string(), "--task", "99"},         // no such task
    };
    for (std::vector<std::string> args : bad) {
        args.insert(args.end(), {"--backend", "cpu", "--out", (dir.path() / "out").string()});
        SCOPED_TRACE(args[1] + " " + args[2] + " " + args[3]);
        const ProcessResult r = cli(args);
        EXPECT_EQ(r.exit_code, 1) << r.both();
        EXPECT_FALSE(fs::exists(dir.path() / "out" / "results.json"));
    }
    // --slurm where there is no sbatch: refused, saying what it needs, nothing written.
    const ProcessResult no_slurm = cli({"grade", assignment, make_class(dir).string(), "--slurm", "--gres=none", "--out",
                                        (dir.path() / "out").string()},
                                       {"PATH=" + (dir.path() / "empty").string()});
    EXPECT_EQ(no_slurm.exit_code, 1) << no_slurm.both();
    EXPECT_NE(no_slurm.err.find("sbatch"), std::string::npos) << no_slurm.both();
    EXPECT_FALSE(fs::exists(dir.path() / "out" / "results.json"));
}

}  // namespace
}  // namespace cp::test
