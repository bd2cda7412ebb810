// `cuda-playground grade` on whole made-up classes (issue 40): 40 vector-add submissions with every failure
// kind among them (compile errors, wrong at odd sizes only, out of bounds, a fault, a kernel that never ends,
// too slow, an attempt to open a file, a changed reference, a folder without a file), a reduction class whose
// races show when the block's threads run in another order, and an image filter class on photos of odd sizes;
// each student's statuses, scores and speed verdicts checked. A re-grade runs only what changed; the same class
// through the real single-node Slurm as an array job, a node lost during it retried. On a GPU, the three classes
// again under compute-sanitizer, each student's results the CPU backend's but where the GPU's own behaviour differs.
#include "cli/cli_support.h"
#include "support/slurm_cluster.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "test_paths.h"

namespace cp::test {
namespace {

namespace fs = std::filesystem;

const fs::path kClassGradeData = fs::path(CP_TEST_DATA_DIR) / "grade";

// A submission: the student's name, the body that replaces the handout's kernel body, what each case must end as.
struct Student {
    std::string name;
    std::string body;
    std::vector<std::string> statuses;
    bool slow = false;  // passes, and is slower than the reference on the large case
};

// The class in `dir`/class: the assignment's students' copy (export --for-students) with each student's body in
// place of `body`. A name with a `/` is a folder of its own.
fs::path make_class(const TempDir& dir, const std::string& assignment, const std::string& body,
                    const std::vector<Student>& students) {
    const fs::path handout = dir.path() / ("handout-" + assignment);
    const ProcessResult r = cli({"export", (kClassGradeData / assignment).string(), "--for-students", "--out", handout.string()});
    EXPECT_EQ(r.exit_code, 0) << r.both();
    const std::string text = read_file(handout);
    EXPECT_NE(text.find(body), std::string::npos);
    for (const Student& s : students) {
        if (s.body.empty()) continue;  // a folder without a .cu file: made by the caller
        std::string mine = text;
        mine.replace(mine.find(body), body.size(), s.body);
        dir.write("class/" + (s.name.find('/') == std::string::npos ? s.name + ".cu" : s.name), mine);
    }
    // CP_GRADE_CLASSES=DIR keeps a copy of each class (DIR/<assignment's stem>/), to grade it elsewhere too (the
    // GPU machine's run, its results compared with these).
    if (const char* keep = std::getenv("CP_GRADE_CLASSES")) {
        const fs::path to = fs::path(keep) / fs::path(assignment).stem();
        fs::remove_all(to);
        fs::create_directories(to);
        fs::copy(dir.path() / "class", to, fs::copy_options::recursive);
    }
    return dir.path() / "class";
}

int line_of(const fs::path& file, const std::string& text) {
    const std::string s = read_file(file);
    const size_t at = s.find(text);
    EXPECT_NE(at, std::string::npos) << text << " in " << file;
    return 1 + int(std::count(s.begin(), s.begin() + long(at), '\n'));
}

std::string student_of(const std::string& name) { return name.substr(0, name.find('/')); }

// Every student's statuses as expected; scores as the statuses and the speed verdicts give them.
void check_class(const nlohmann::json& j, const std::vector<Student>& students, int correct_points, int speed_points) {
    ASSERT_EQ(j.at("students").size(), students.size());
    std::map<std::string, const Student*> by_name;
    for (const Student& s : students) by_name[student_of(s.name)] = &s;
    const size_t cases = j.at("cases").size();
    for (const auto& s : j.at("students")) {
        const std::string name = s.at("student");
        SCOPED_TRACE(name);
        ASSERT_EQ(by_name.count(name), 1u);
        const Student& e = *by_name.at(name);
        ASSERT_EQ(s.at("cases").size(), cases);
        ASSERT_EQ(e.statuses.size(), cases);
        int passed = 0;
        double fractions = 0;
        for (size_t i = 0; i < cases; ++i) {
            const auto& c = s.at("cases")[i];
            EXPECT_EQ(c.at("status"), e.statuses[i]) << c.dump();
            const bool ok = e.statuses[i] == "passed";
            passed += ok;
            // A passed case is timed against the reference; any other earns no speed points.
            EXPECT_EQ(c.at("speed").is_string(), ok) << c.dump();
            if (!ok) {
                EXPECT_EQ(c.at("speed_fraction"), 0.0);
            }
            if (ok) {
                EXPECT_GT(c.at("time").at("median_ms").get<double>(), 0.0);
                EXPECT_LE(c.at("time").at("min_ms").get<double>(), c.at("time").at("median_ms").get<double>());
                EXPECT_GE(c.at("time").at("max_ms").get<double>(), c.at("time").at("median_ms").get<double>());
                const double fraction = c.at("speed_fraction");
                EXPECT_GT(fraction, 0.0);
                EXPECT_LE(fraction, 1.0);
                if (c.at("speed") != "slower") {
                    EXPECT_EQ(fraction, 1.0);
                } else {
                    EXPECT_NEAR(fraction, c.at("speedup").get<double>(), 1e-9);
                }
                fractions += fraction;
            } else if (c.at("status") != "wrong") {
                EXPECT_TRUE(c.at("error_kind").is_string()) << c.dump();
            }
        }
        if (e.slow) {
            // The large case: the slow kernel does 16 threads' work in every thread, so its median is above the
            // reference's however loaded the machine (whether that is beyond the noise is the clock's to say: the
            // rule itself is tested on given times, tests/unit/assignment_test.cpp).
            EXPECT_LT(s.at("cases")[0].at("speedup").get<double>(), 1.0);
        }
        EXPECT_EQ(s.at("passed"), passed);
        EXPECT_NEAR(s.at("correct_score").get<double>(), correct_points * double(passed) / double(cases), 1e-9);
        EXPECT_NEAR(s.at("speed_score").get<double>(), speed_points * fractions / double(cases), 1e-9);
        EXPECT_NEAR(s.at("score").get<double>(), s.at("correct_score").get<double>() + s.at("speed_score").get<double>(), 1e-9);
    }
}

const char* const kVectorBody = "    if (i < n) c[i] = a[i] + b[i];";

// 40 students of week 1 (cases: even n = 65536, odd n = 100003, one n = 1).
std::vector<Student> week1_class() {
    const std::vector<std::string> all(3, "passed");
    const std::vector<std::string> right_forms = {
        "    if (i < n) c[i] = a[i] + b[i];",
        "    if (i >= n) return;\n    c[i] = a[i] + b[i];",
        "    for (int k = i; k < n; k += blockDim.x * gridDim.x) c[k] = a[k] + b[k];",
        "    if (i < n) c[i] = b[i] + a[i];",
        "    if (n > i) {\n        float x = a[i];\n        float y = b[i];\n        c[i] = x + y;\n    }",
    };
    std::vector<Student> out;
    for (int k = 0; k < 25; ++k) {
        char name[32];
        std::snprintf(name, sizeof name, "s%02d", k + 1);
        out.push_back({name, right_forms[size_t(k) % right_forms.size()] + "  // " + name, all});
    }
    out.push_back({"ulla/week1.cu", right_forms[0], all});  // a folder of their own
    out.push_back({"carol", "    if (i < n) c[i] = a[i] + b[i]", std::vector<std::string>(3, "compile_error")});
    out.push_back({"cyril", "    if (i < n) c[i] = a[j] + b[i];", std::vector<std::string>(3, "compile_error")});
    // Right only where the block divides n.
    out.push_back({"fiona", "    if (blockIdx.x < n / blockDim.x) c[i] = a[i] + b[i];", {"passed", "wrong", "wrong"}});
    out.push_back({"felix", "    if (i < n - n % 2) c[i] = a[i] + b[i];", {"passed", "wrong", "wrong"}});
    // No bounds check, or one off by one: out of bounds where the grid covers more threads than elements.
    out.push_back({"bob", "    c[i] = a[i] + b[i];", {"passed", "out_of_bounds", "out_of_bounds"}});
    out.push_back({"bea", "    if (i <= n) c[i] = a[i] + b[i];", {"passed", "out_of_bounds", "out_of_bounds"}});
    out.push_back({"gus", "    if (i == n / 2) *(volatile int*)nullptr = 1;\n    if (i < n) c[i] = a[i] + b[i];",
                   std::vector<std::string>(3, "fault")});
    out.push_back({"hank", "    if (i < n) {\n        volatile float* v = c;\n        while (v[i] != 12345.0f) { }\n    }",
                   std::vector<std::string>(3, "hang")});
    // Every thread does the work of its group of 16: right, and far slower.
    const std::string slow = "    for (int j = 0; j < 16; ++j) {\n        int k = i - i % 16 + j;\n"
                             "        if (k < n) c[k] = a[k] + b[k];\n    }";
    out.push_back({"sam", slow, all, true});
    out.push_back({"sid", slow + "  // the same, slower still", all, true});
    out.push_back({"otto",
                   "#ifdef __CUDA_PLAYGROUND_CPU__\n    if (i == 0) { FILE* f = fopen(\"/etc/hostname\", \"r\"); if (f) fclose(f); }\n#endif\n"
                   "    if (i < n) c[i] = a[i] + b[i];",
                   std::vector<std::string>(3, "sandbox_refusal")});
    out.push_back({"wendy", "    if (i < n) c[i] = a[i] * b[i];", std::vector<std::string>(3, "wrong")});
    out.push_back({"eve", "    if (i < n) c[i] = a[i] - b[i];", std::vector<std::string>(3, "wrong")});  // reference changed below
    out.push_back({"gina/notes.txt", "", std::vector<std::string>(3, "error")});
    return out;
}

fs::path make_week1(const TempDir& dir, const std::vector<Student>& students) {
    const fs::path cls = make_class(dir, "vector_add_week1.cu", kVectorBody, students);
    // otto's host code needs <cstdio>; eve changed the copy's reference to agree with her kernel.
    std::string otto = read_file(cls / "otto.cu");
    otto.insert(0, "#ifdef __CUDA_PLAYGROUND_CPU__\n#include <cstdio>\n#endif\n");
    dir.write("class/otto.cu", otto);
    std::string eve = read_file(cls / "eve.cu");
    const std::string sum = "for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];";
    EXPECT_NE(eve.find(sum), std::string::npos);
    eve.replace(eve.find(sum), sum.size(), "for (int i = 0; i < n; ++i) c[i] = a[i] - b[i];");
    dir.write("class/eve.cu", eve);
    fs::create_directories(cls / "gina");
    dir.write("class/gina/notes.txt", "my kernel is somewhere else\n");
    if (const char* keep = std::getenv("CP_GRADE_CLASSES")) {
        const fs::path to = fs::path(keep) / "vector_add_week1";
        fs::remove_all(to);
        fs::copy(cls, to, fs::copy_options::recursive);
    }
    return cls;
}

TEST(GradeClass, FortyVectorAddSubmissionsWithEveryFailureKindOnTheCpuBackend) {
    TempDir dir;
    const std::vector<Student> students = week1_class();
    ASSERT_EQ(students.size(), 40u);
    const fs::path cls = make_week1(dir, students);
    const ProcessResult r = cli({"grade", (kClassGradeData / "vector_add_week1.cu").string(), cls.string(), "--backend", "cpu",
                                 "--jobs", "2", "--out", (dir.path() / "results").string()});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    const nlohmann::json j = nlohmann::json::parse(read_file(dir.path() / "results" / "results.json"));
    EXPECT_EQ(j.at("schema_version"), 2);
    EXPECT_EQ(j.at("checks"), "threads reversed and shuffled");
    // The reference passed every case and was timed; the odd case's seed is recorded, the others have the header's.
    for (const auto& c : j.at("reference").at("cases")) {
        EXPECT_EQ(c.at("status"), "passed");
        EXPECT_GT(c.at("time").at("median_ms").get<double>(), 0.0);
    }
    for (const auto& s : j.at("students")) {
        EXPECT_TRUE(s.at("cases")[0].at("seed").is_null());
        EXPECT_EQ(s.at("cases")[1].at("seed"), 5);
    }
    check_class(j, students, 80, 20);
    // Messages point at the student's own line: bob's unguarded line, gus's null write.
    for (const auto& s : j.at("students")) {
        if (s.at("student") == "bob") {
            EXPECT_EQ(s.at("cases")[1].at("line"), line_of(cls / "bob.cu", "c[i] = a[i] + b[i];"));
        }
        if (s.at("student") == "gus") {
            EXPECT_EQ(s.at("cases")[0].at("line"), line_of(cls / "gus.cu", "nullptr"));
        }
    }
    // The class page plots every passed case's time (one dot each) beside the reference's line per case.
    const std::string index = read_file(dir.path() / "results" / "index.html");
    size_t dots = 0, passed = 0;
    for (size_t at = index.find("<circle"); at != std::string::npos; at = index.find("<circle", at + 1)) ++dots;
    for (const auto& s : j.at("students"))
        for (const auto& c : s.at("cases")) passed += c.at("status") == "passed";
    EXPECT_EQ(dots, passed);
    size_t reference_lines = 0;
    for (size_t at = index.find("stroke=\"#c02020\""); at != std::string::npos; at = index.find("stroke=\"#c02020\"", at + 1))
        ++reference_lines;
    EXPECT_EQ(reference_lines, 3u);
}

const char* const kSumBody =
    "    partial[tid] = i < n ? input[i] : 0;\n    __syncthreads();\n"
    "    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {\n"
    "        if (tid < stride) partial[tid] += partial[tid + stride];\n        __syncthreads();\n    }\n"
    "    if (tid == 0) atomicAdd(total, partial[0]);";

// The reduction class: 4 right (one with atomics only), a race, out of bounds, wrong, a compile error.
std::vector<Student> block_sum_class() {
    const std::vector<std::string> all(3, "passed");
    auto replaced = [](std::string s, const std::string& from, const std::string& to) {
        const size_t at = s.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        return s.replace(at, from.size(), to);
    };
    std::vector<Student> students = {
        {"ada", kSumBody, all},
        {"ben", std::string(kSumBody) + "  // the same", all},
        {"cy",
         "    partial[tid] = i < n ? input[i] : 0;\n    __syncthreads();\n"
         "    for (int stride = blockDim.x >> 1; stride >= 1; stride >>= 1) {\n"
         "        if (tid < stride) partial[tid] = partial[tid] + partial[tid + stride];\n        __syncthreads();\n    }\n"
         "    if (tid == 0) atomicAdd(total, partial[0]);",
         all},
        {"dee", "    if (i < n) atomicAdd(total, input[i]);", all},  // no shared memory at all: right
        // The barrier inside the loop left out: partial sums read before they are written.
        {"ed", replaced(kSumBody, "partial[tid + stride];\n        __syncthreads();\n    }", "partial[tid + stride];\n    }"),
         {"race", "race", "race"}},
        // Each element read with no bounds check.
        {"flo", replaced(kSumBody, "i < n ? input[i] : 0;", "input[i];"),
         {"out_of_bounds", "out_of_bounds", "out_of_bounds"}},
        {"gil", replaced(kSumBody, "partial[0]);", "partial[1]);"), {"wrong", "wrong", "wrong"}},
        {"hal", replaced(kSumBody, "input[i] : 0;", "input[i] : 0"), std::vector<std::string>(3, "compile_error")},
    };
    return students;
}

TEST(GradeClass, AReductionClassWhoseRacesShowWhenTheThreadsRunInAnotherOrder) {
    TempDir dir;
    const std::vector<Student> students = block_sum_class();
    const fs::path cls = make_class(dir, "block_sum_assignment.cu", kSumBody, students);
    const ProcessResult r = cli({"grade", (kClassGradeData / "block_sum_assignment.cu").string(), cls.string(), "--backend", "cpu",
                                 "--out", (dir.path() / "results").string()});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    const nlohmann::json j = nlohmann::json::parse(read_file(dir.path() / "results" / "results.json"));
    check_class(j, students, 70, 30);
    for (const auto& s : j.at("students"))
        if (s.at("student") == "ed") {
            EXPECT_EQ(s.at("cases")[0].at("error_kind"), "race");
        }
}

const char* const kGrayBody = "    if (x >= width || y >= height) return;";

// The grayscale class: 3 right, no bounds check, half a bounds check, a compile error (dan's body: a comment).
std::vector<Student> grayscale_class() {
    const std::vector<std::string> both(2, "passed");
    const std::vector<Student> students = {
        {"ana", kGrayBody, both},
        {"bo", "    if (x < width && y < height) {} else return;", both},
        {"cat", "    if (y >= height) return;\n    if (x >= width) return;", both},
        // No bounds check: the 600 x 400 photo is no multiple of 16 across, nor is the 451 x 300 one.
        {"dan", "", {"out_of_bounds", "out_of_bounds"}},
        // Only x checked: the rows past the last one read out of bounds where the height is not a multiple.
        {"eli", "    if (x >= width) return;", {"passed", "out_of_bounds"}},
        {"fay", "    if (x >= width || y >= height) return", {"compile_error", "compile_error"}},
    };
    std::vector<Student> made = students;
    for (Student& s : made)
        if (s.name == "dan") s.body = "    // no check";
    return made;
}

TEST(GradeClass, AnImageFilterClassOnPhotosWhoseSizesTheBlockDoesNotDivide) {
    TempDir dir;
    const std::vector<Student> made = grayscale_class();
    const fs::path cls = make_class(dir, "grayscale_assignment.cu", kGrayBody, made);
    const ProcessResult r = cli({"grade", (kClassGradeData / "grayscale_assignment.cu").string(), cls.string(), "--backend", "cpu",
                                 "--out", (dir.path() / "results").string()});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    const nlohmann::json j = nlohmann::json::parse(read_file(dir.path() / "results" / "results.json"));
    check_class(j, made, 100, 0);
}

TEST(GradeClass, AReGradeRunsOnlyTheCasesWhoseSubmissionOrCaseChanged) {
    TempDir dir;
    const std::vector<std::string> all(3, "passed");
    const std::vector<Student> students = {{"amy", kVectorBody, all},
                                           {"bob", "    c[i] = a[i] + b[i];", {"passed", "out_of_bounds", "out_of_bounds"}},
                                           {"cal", "    if (i < n) c[i] = a[i] + b[i];  // cal", all}};
    const fs::path cls = make_class(dir, "vector_add_week1.cu", kVectorBody, students);
    // The assignment in a folder of its own, so that one case can change.
    const fs::path assignment = dir.path() / "week1.cu";
    dir.write("week1.cu", read_file(kClassGradeData / "vector_add_week1.cu"));
    const std::vector<std::string> command = {"grade", assignment.string(), cls.string(), "--backend", "cpu", "--out",
                                              (dir.path() / "results").string()};
    ASSERT_EQ(cli(command).exit_code, 0);
    auto kept = [&]() {
        const nlohmann::json j = nlohmann::json::parse(read_file(dir.path() / "results" / "results.json"));
        std::map<std::string, std::vector<bool>> out;
        for (const auto& s : j.at("students"))
            for (const auto& c : s.at("cases")) out[s.at("student")].push_back(c.at("kept").get<bool>());
        return out;
    };
    for (const auto& [student, flags] : kept()) EXPECT_EQ(flags, std::vector<bool>(3, false)) << student;

    // Nothing changed: every case kept.
    ASSERT_EQ(cli(command).exit_code, 0);
    for (const auto& [student, flags] : kept()) EXPECT_EQ(flags, std::vector<bool>(3, true)) << student;

    // bob fixes his kernel, and the teacher changes the `one` case: bob's cases all run, and `one` for everyone.
    std::string bob = read_file(cls / "bob.cu");
    const std::string line = "    c[i] = a[i] + b[i];";
    bob.replace(bob.find(line), line.size(), kVectorBody);
    dir.write("class/bob.cu", bob);
    std::string text = read_file(assignment);
    const std::string one = "grade case one: n = 1";
    text.replace(text.find(one), one.size(), "grade case one: n = 3");
    dir.write("week1.cu", text);
    const ProcessResult again = cli(command);
    ASSERT_EQ(again.exit_code, 0) << again.both();
    const std::map<std::string, std::vector<bool>> flags = kept();
    EXPECT_EQ(flags.at("amy"), (std::vector<bool>{true, true, false}));
    EXPECT_EQ(flags.at("bob"), (std::vector<bool>{false, false, false}));
    EXPECT_EQ(flags.at("cal"), (std::vector<bool>{true, true, false}));
    const nlohmann::json j = nlohmann::json::parse(read_file(dir.path() / "results" / "results.json"));
    for (const auto& s : j.at("students"))
        for (const auto& c : s.at("cases")) EXPECT_EQ(c.at("status"), "passed") << s.at("student");
}

TEST(GradeClass, TheFortyThroughSlurmAsAnArrayJobWithALostNodeRetried) {
    SlurmCluster slurm;
    if (!slurm.running()) GTEST_SKIP() << "no single-node Slurm here: " << slurm.why_not();
    TempDir dir;
    const std::vector<Student> students = week1_class();
    const fs::path cls = make_week1(dir, students);
    const std::string conf = "SLURM_CONF=" + (slurm.folder() / "slurm.conf").string();
    // Task 7's first attempt dies as a lost node's would (no result): the array must submit it again.
    const ProcessResult r = cli({"grade", (kClassGradeData / "vector_add_week1.cu").string(), cls.string(), "--backend", "cpu",
                                 "--slurm", "--gres=none --partition=cptest", "--out", (dir.path() / "results").string()},
                                {conf, "CUDA_PLAYGROUND_GRADE_LOSE_TASK=7"});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    EXPECT_TRUE(fs::exists(dir.path() / "results" / "slurm" / "task-7.lost"));
    // One task per submission and the reference, each with its result.
    for (size_t t = 0; t <= students.size(); ++t) EXPECT_TRUE(fs::exists(dir.path() / "results" / "slurm" / ("task-" + std::to_string(t) + ".json"))) << t;
    const nlohmann::json j = nlohmann::json::parse(read_file(dir.path() / "results" / "results.json"));
    check_class(j, students, 80, 20);
}

// ---- the same classes on a GPU, under compute-sanitizer ------------------------------------------------------
// Each student's results must be the CPU backend's (the tests above) except where the GPU's own behaviour differs,
// which each test names. They run where `info` names CUDA as the default backend and compute-sanitizer is found.

std::string why_not_gpu_sanitizer() {
    const ProcessResult r = cli({"info", "--json"});
    const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    if (j.is_discarded()) return "`info --json` gave no JSON: " + r.both();
    if (j.value("default_backend", "") != "cuda") return "no CUDA device here (GradeClass.* grade the classes on the CPU backend)";
    if (!j.at("cuda").at("capabilities").value("sanitizer", false)) return "compute-sanitizer was not found";
    return "";
}

nlohmann::json grade_on_gpu(const TempDir& dir, const std::string& assignment, const fs::path& cls) {
    const ProcessResult r = cli({"grade", (kClassGradeData / assignment).string(), cls.string(), "--backend", "cuda", "--out",
                                 (dir.path() / "results").string()});
    EXPECT_EQ(r.exit_code, 0) << r.both();
    nlohmann::json j = nlohmann::json::parse(read_file(dir.path() / "results" / "results.json"));
    EXPECT_EQ(j.at("checks"), "memcheck, racecheck");
    EXPECT_EQ(j.at("backend"), "cuda");
    return j;
}

TEST(GradeClassOnTheGpu, TheFortyUnderComputeSanitizerAsOnTheCpuBackend) {
    if (const std::string why = why_not_gpu_sanitizer(); !why.empty()) GTEST_SKIP() << why;
    TempDir dir;
    std::vector<Student> students = week1_class();
    const fs::path cls = make_week1(dir, students);
    for (Student& s : students) {
        // otto opens a file only where __CUDA_PLAYGROUND_CPU__ is defined, which the GPU's compiler never defines:
        // his kernel is a plain vector add there.
        if (s.name == "otto") s.statuses.assign(3, "passed");
        // sam and sid do 16 threads' work in every thread; at 65536 elements a GPU runs that in about the time of
        // the launch itself (measured 0.7-0.85x the reference on an H100), too close to assert on a shared clock.
        s.slow = false;
    }
    const nlohmann::json j = grade_on_gpu(dir, "vector_add_week1.cu", cls);
    check_class(j, students, 80, 20);
}

TEST(GradeClassOnTheGpu, TheReductionClassUnderRacecheckAndMemcheckAsOnTheCpuBackend) {
    if (const std::string why = why_not_gpu_sanitizer(); !why.empty()) GTEST_SKIP() << why;
    TempDir dir;
    // No difference: ed's missing barrier is racecheck's hazard (the GPU itself passed it on some runs), and flo's
    // reads past the input's end, which fault nowhere on a GPU and only make the sum wrong, are memcheck's.
    const std::vector<Student> students = block_sum_class();
    const fs::path cls = make_class(dir, "block_sum_assignment.cu", kSumBody, students);
    const nlohmann::json j = grade_on_gpu(dir, "block_sum_assignment.cu", cls);
    check_class(j, students, 70, 30);
    for (const auto& s : j.at("students")) {
        if (s.at("student") == "ed") {
            EXPECT_EQ(s.at("cases")[0].at("error_kind"), "race");
        }
        if (s.at("student") == "flo") {
            EXPECT_EQ(s.at("cases")[1].at("line"), line_of(cls / "flo.cu", "partial[tid] = input[i];"));
        }
    }
}

TEST(GradeClassOnTheGpu, TheImageFilterClassUnderComputeSanitizerAsOnTheCpuBackend) {
    if (const std::string why = why_not_gpu_sanitizer(); !why.empty()) GTEST_SKIP() << why;
    TempDir dir;
    const std::vector<Student> students = grayscale_class();
    const fs::path cls = make_class(dir, "grayscale_assignment.cu", kGrayBody, students);
    check_class(grade_on_gpu(dir, "grayscale_assignment.cu", cls), students, 100, 0);
}

}  // namespace
}  // namespace cp::test
