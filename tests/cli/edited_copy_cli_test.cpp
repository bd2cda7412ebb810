// `run basics/vector_add` runs the library's stock file; when the window holds an edited copy of it, the run says so
// with the copy's path (issue 41: it ran the stock file silently, and the student thought their edit had run).
#include "cli_support.h"
#include "support/process.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using cp::test::cli;
using cp::test::ProcessResult;

namespace {

std::string stock_vector_add() {
    std::ifstream in(std::string(CP_SOURCE_DIR) + "/kernels/basics/vector_add.cu", std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

ProcessResult run_with_user_dir(const std::filesystem::path& user) {
    return cli({"run", "basics/vector_add", "--backend", "cpu", "--set", "n=1000", "--no-verify"},
               {"CUDA_PLAYGROUND_USER_DIR=" + user.string()});
}

TEST(EditedCopies, RunningALibraryLessonNamesTheEditedCopyItDidNotRun) {
    cp::test::TempDir user;
    const std::filesystem::path copy = user.path() / "edits" / "basics" / "vector_add.cu";
    const std::string stock = stock_vector_add();
    ASSERT_FALSE(stock.empty());

    const ProcessResult none = run_with_user_dir(user.path());  // no copy
    ASSERT_EQ(none.exit_code, 0) << none.err;
    EXPECT_EQ(none.err.find(copy.string()), std::string::npos) << none.err;

    std::filesystem::create_directories(copy.parent_path());
    std::ofstream(copy, std::ios::binary) << stock;  // a copy the same as the stock: nothing to say
    const ProcessResult same = run_with_user_dir(user.path());
    ASSERT_EQ(same.exit_code, 0) << same.err;
    EXPECT_EQ(same.err.find(copy.string()), std::string::npos) << same.err;

    std::ofstream(copy, std::ios::binary) << stock << "\n// my change\n";
    const ProcessResult edited = run_with_user_dir(user.path());
    ASSERT_EQ(edited.exit_code, 0) << edited.err;
    EXPECT_NE(edited.err.find(copy.string()), std::string::npos) << edited.err;
}

}  // namespace
