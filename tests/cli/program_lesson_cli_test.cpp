// A program's launch saved as a lesson (issue 36, `run prog.cu --save-launch N`): the lesson runs through the whole
// lesson pipeline on the launch's captured inputs and is checked against what the program's launch wrote. The
// expected counts are computed here from the programs' own inputs, not read from the files the save wrote.
#include "cli_support.h"
#include "support/process.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

using cp::test::cli;
using cp::test::ProcessResult;
using Json = nlohmann::json;

namespace {

const std::string kLessonPrograms = std::string(CP_TEST_DATA_DIR) + "/programs";

std::string lesson_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// `run FILE ARGS... --backend cpu --json -`, its JSON.
Json lesson_json(const std::string& file, std::vector<std::string> more = {}) {
    std::vector<std::string> argv = {"run", file, "--backend", "cpu", "--json", "-"};
    argv.insert(argv.end(), more.begin(), more.end());
    const ProcessResult r = cli(argv);
    EXPECT_FALSE(r.out.empty()) << r.err;
    return Json::parse(r.out);
}

// stencil_1d.cu launches `stencil_1d<<<N / BLOCK, BLOCK>>>(d_in + RADIUS, d_out + RADIUS)` on 5120 elements with a
// halo of 3 each side, its input i % 10. Saved as a lesson, the pointers are 3 elements into their buffers.
TEST(ProgramLessons, AStencilLaunchRunsAsALessonCheckedAgainstTheProgramsResult) {
    cp::test::TempDir dir;
    const std::string out = (dir.path() / "stencil").string();
    const ProcessResult saved =
        cli({"run", kLessonPrograms + "/stencil_1d.cu", "--backend", "cpu", "--save-launch", "1", "--out-dir", out});
    ASSERT_EQ(saved.exit_code, 0) << saved.err;
    EXPECT_NE(saved.out.find("Success"), std::string::npos) << saved.out;  // the program's own output, as ever
    const std::filesystem::path lesson = std::filesystem::path(out) / "stencil_1d.cu";
    ASSERT_TRUE(std::filesystem::exists(lesson));
    const std::string text = lesson_text(lesson);
    EXPECT_NE(text.find("buffer in: int[5126] in data(\"in.bin\") offset 3"), std::string::npos) << text;
    EXPECT_NE(text.find("result out: data(\"out.after.bin\")"), std::string::npos) << text;

    const Json as_written = lesson_json(lesson.string());
    EXPECT_EQ(as_written.at("check").at("state"), "matches");
    EXPECT_EQ(as_written.at("check").at("against"), "recorded_result");
    EXPECT_EQ(as_written.at("grid")[0], 40);
    EXPECT_EQ(as_written.at("block")[0], 128);

    // Half the block with the same grid: the stencil writes 40 * 64 of its 5120 outputs, and every other one still
    // holds the input copied there (i % 10, at most 9), never a sum of seven inputs (at least 0+1+...+6 = 21). Of
    // those it writes, each block's last RADIUS read a right halo the kernel loads at BLOCK_SIZE (128), not at
    // blockDim.x: shared memory no thread wrote, so they may be wrong too.
    const Json half = lesson_json(lesson.string(), {"--block", "64"});
    EXPECT_EQ(half.at("check").at("state"), "differs");
    EXPECT_GE(half.at("mismatched_elements").get<int>(), 5120 - 40 * 64);
    EXPECT_LE(half.at("mismatched_elements").get<int>(), 5120 - 40 * 64 + 40 * 3);

    // One block more reads past the halo: stopped with the buffer named, as a lesson's kernel is.
    const Json past = lesson_json(lesson.string(), {"--grid", "41"});
    EXPECT_EQ(past.at("error_kind"), "out_of_bounds");
}

// The second launch of reduce_two_launches.cu sums the first one's partial sums in one block: as a lesson it gets
// those partial sums as its input (their sum is the program's total, computed here) and checks the one it leaves.
TEST(ProgramLessons, TheSecondLaunchOfAReductionGetsTheFirstOnesResults) {
    cp::test::TempDir dir;
    const std::string out = (dir.path() / "reduce").string();
    const int n = 10007;
    const ProcessResult saved = cli({"run", kLessonPrograms + "/reduce_two_launches.cu", "--backend", "cpu",
                                     "--save-launch", "2", "--out-dir", out, "--", std::to_string(n)});
    ASSERT_EQ(saved.exit_code, 0) << saved.err;
    long long expect = 0;
    for (int i = 0; i < n; i++) expect += (i * 7) % 13 - 6;
    expect += 1000 - ((100 * 7) % 13 - 6);
    // The partial sums the second launch read add up to the total; what it wrote is that total.
    const std::string partials = lesson_text(std::filesystem::path(out) / "in.bin");
    long long sum = 0;
    for (size_t k = 0; k + 4 <= partials.size(); k += 4) {
        int v;
        std::memcpy(&v, partials.data() + k, 4);
        sum += v;
    }
    EXPECT_EQ(sum, expect);
    const std::string total = lesson_text(std::filesystem::path(out) / "partial.after.bin");
    ASSERT_GE(total.size(), 4u);
    int first = 0;
    std::memcpy(&first, total.data(), 4);
    EXPECT_EQ(first, expect);
    const Json j = lesson_json((std::filesystem::path(out) / "partial_sums.cu").string());
    EXPECT_EQ(j.at("check").at("state"), "matches");
    // Another value of n than the launch had: the recording does not say what is right for it, so it is not judged.
    const Json other = lesson_json((std::filesystem::path(out) / "partial_sums.cu").string(), {"--set", "n=10"});
    EXPECT_EQ(other.at("check").at("state"), "not_checked");
    EXPECT_EQ(other.at("check").at("against"), "recorded_result");
}

TEST(ProgramLessons, ALaunchThatCannotStandAloneIsRefusedWithItsReason) {
    cp::test::TempDir dir;
    // A __constant__ filter set by cudaMemcpyToSymbol: the lesson would not hold it.
    const ProcessResult constant = cli({"run", kLessonPrograms + "/constant_filter.cu", "--backend", "cpu",
                                        "--save-launch", "1", "--out-dir", (dir.path() / "c").string()});
    EXPECT_NE(constant.exit_code, 0);
    EXPECT_NE(constant.err.find("cudaMemcpyToSymbol"), std::string::npos) << constant.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "c"));
    // No such launch.
    const ProcessResult past = cli({"run", kLessonPrograms + "/vector_add.cu", "--backend", "cpu", "--save-launch",
                                    "2", "--out-dir", (dir.path() / "v").string()});
    EXPECT_NE(past.exit_code, 0);
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "v"));
    // --out-dir alone means nothing.
    const ProcessResult alone =
        cli({"run", kLessonPrograms + "/vector_add.cu", "--backend", "cpu", "--out-dir", (dir.path() / "w").string()});
    EXPECT_NE(alone.exit_code, 0) << alone.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "w"));
}

}  // namespace
