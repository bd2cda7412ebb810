// `cuda-playground export` (issue 38): the lesson's program and CMakeLists.txt written where --out says, built by
// CMake with nvcc as a reader of the README would build it; mistakes (a program, no header, a bad --set, a folder
// that cannot be written) are refused with exit status 1 and nothing half-written.
#include "cli/cli_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "test_paths.h"

namespace cp::test {
namespace {

namespace fs = std::filesystem;

fs::path on_path(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::string all = path ? path : "/usr/bin:/bin";
    for (size_t start = 0; start <= all.size();) {
        const size_t end = std::min(all.find(':', start), all.size());
        const fs::path p = fs::path(all.substr(start, end - start)) / name;
        if (!all.substr(start, end - start).empty() && fs::exists(p)) return p;
        start = end + 1;
    }
    return {};
}

TEST(CliExport, TheExportedLessonBuildsWithItsCMakeLists) {
    const fs::path nvcc = cuda_toolkit_tool("nvcc");
    if (nvcc.empty()) GTEST_SKIP() << "no nvcc here (CUDACXX, CUDA_HOME/bin or /usr/local/cuda/bin)";
    const fs::path cmake = on_path("cmake");
    ASSERT_FALSE(cmake.empty()) << "cmake builds this project: it must be on PATH";
    TempDir dir;
    const fs::path out = dir.path() / "blur";
    const ProcessResult r = cli({"export", "image/box_blur", "--out", out.string()});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    EXPECT_NE(r.out.find("cmake -S " + out.string()), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("not in the program: the compare variants"), std::string::npos) << r.out;
    ASSERT_TRUE(fs::exists(out / "box_blur.cu"));
    ASSERT_TRUE(fs::exists(out / "CMakeLists.txt"));
    ASSERT_TRUE(fs::exists(out / "box_blur_src_initial.h"));  // the photo's bytes
    // As the program's first lines say: cmake -B build && cmake --build build (an architecture given, since this
    // machine has no GPU for `native`).
    const ProcessResult configure = run_process({cmake.string(), "-S", out.string(), "-B", (out / "build").string(),
                                                 "-DCMAKE_CUDA_ARCHITECTURES=90",
                                                 "-DCMAKE_CUDA_COMPILER=" + nvcc.string()});
    ASSERT_EQ(configure.exit_code, 0) << configure.both();
    const ProcessResult build = run_process({cmake.string(), "--build", (out / "build").string()});
    ASSERT_EQ(build.exit_code, 0) << build.both();
    EXPECT_TRUE(fs::exists(out / "build" / "box_blur"));
}

TEST(CliExport, MistakesAreRefusedWithWhatToDo) {
    TempDir dir;
    // A whole program: it is shared as it is.
    ProcessResult r = cli({"export", std::string(CP_TEST_DATA_DIR) + "/programs/vector_add.cu", "--out",
                           (dir.path() / "a").string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_FALSE(fs::exists(dir.path() / "a"));
    // A parameter out of its range.
    r = cli({"export", "basics/vector_add", "--set", "n=0", "--out", (dir.path() / "b").string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_FALSE(fs::exists(dir.path() / "b"));
    // A folder under a file.
    const fs::path file = dir.write("plain.txt", "x");
    r = cli({"export", "basics/vector_add", "--out", (file / "sub").string()});
    EXPECT_EQ(r.exit_code, 1);
    // The --set value reaches the program.
    r = cli({"export", "basics/vector_add", "--set", "n=777", "--out", (dir.path() / "c").string()});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    EXPECT_NE(read_file(dir.path() / "c" / "vector_add.cu").find("const int n = 777;"), std::string::npos);
}

// An assignment's students' copy (issue 40): the file without its grade lines, written where --out says; it runs
// and verifies as a lesson of its own. A lesson that is no assignment, a hidden case a run would refuse, and an
// --out that is the assignment itself are refused with nothing written.
TEST(CliExport, TheStudentsCopyOfAnAssignmentLeavesTheHiddenCasesOut) {
    TempDir dir;
    const fs::path assignment = fs::path(CP_TEST_DATA_DIR) / "grade" / "vector_add_assignment.cu";
    const std::string source = read_file(assignment);
    ProcessResult r = cli({"export", assignment.string(), "--for-students", "--out", (dir.path() / "week1").string()});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    const fs::path copy = dir.path() / "week1" / "vector_add_assignment.cu";
    ASSERT_TRUE(fs::exists(copy));
    const std::string text = read_file(copy);
    size_t kept = 0, hidden = 0;
    for (size_t start = 0; start < source.size();) {
        const size_t next = std::min(source.find('\n', start), source.size() - 1) + 1;
        const std::string line = source.substr(start, next - start);
        if (line.rfind("grade ", 0) == 0) {
            ++hidden;
            EXPECT_EQ(text.find(line), std::string::npos) << line;
        } else {
            ++kept;
            EXPECT_NE(text.find(line), std::string::npos) << line;
        }
        start = next;
    }
    EXPECT_EQ(hidden, 7u);
    EXPECT_EQ(size_t(std::count(text.begin(), text.end(), '\n')), kept);
    r = cli({"run", copy.string(), "--backend", "cpu", "--json", "-"});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    EXPECT_NE(r.out.find("\"state\": \"matches\""), std::string::npos) << r.out;

    // An --out naming a file.
    r = cli({"export", assignment.string(), "--for-students", "--out", (dir.path() / "hand_out.cu").string()});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    EXPECT_EQ(read_file(dir.path() / "hand_out.cu"), text);

    // Not an assignment.
    r = cli({"export", "basics/vector_add", "--for-students", "--out", (dir.path() / "no").string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_FALSE(fs::exists(dir.path() / "no"));
    // A hidden case a run would refuse (n beyond the header's range).
    std::string bad = source;
    bad.replace(bad.find("n = 1000003"), std::string("n = 1000003").size(), "n = 1000000000");
    const fs::path bad_file = dir.write("bad_assignment.cu", bad);
    r = cli({"export", bad_file.string(), "--for-students", "--out", (dir.path() / "bad").string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find(":" + std::to_string(1 + std::count(bad.begin(), bad.begin() + long(bad.find("grade case odd")), '\n')) + ":"),
              std::string::npos) << r.err;  // the case's line
    EXPECT_FALSE(fs::exists(dir.path() / "bad"));
    // Over the assignment itself.
    const fs::path own = dir.write("own.cu", source);
    r = cli({"export", own.string(), "--for-students", "--out", dir.path().string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(read_file(own), source);
}

}  // namespace
}  // namespace cp::test
