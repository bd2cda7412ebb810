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

}  // namespace
}  // namespace cp::test
