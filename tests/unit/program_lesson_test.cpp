// Lessons made from a program's launch (issue 36): `data("x.bin")` initialisers, `result` lines and `offset K` in
// the header, checked on the CPU backend with inputs and expected outputs computed here; and lesson_from_launch
// on programs run by the CPU program runner, whose lessons must verify against what the program's launch wrote.
#include "core/cpu/program_runner.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/program_lesson.h"
#include "unit/cpu_session.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include "support/process.h"
#include "test_paths.h"

namespace cp {
namespace {

void write_floats(const std::filesystem::path& path, const std::vector<float>& v) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * sizeof(float)));
}

std::vector<float> floats_of(const HostBuffer& b) {
    std::vector<float> v(b.bytes.size() / 4);
    std::memcpy(v.data(), b.bytes.data(), v.size() * 4);
    return v;
}

// y = a * x over n = 1000 elements (not a multiple of the block), x and y from data files, y's result recorded.
const char* kScaleLesson = R"(/*@playground
title: scale
param n: int = 1000
param a: float = 3
buffer x: float[1000] in data("x.bin")
buffer y: float[1000] inout data("y.bin")
result y: data("y.after.bin")
block: 128
grid: 8
*/
__global__ void scale(const float* x, float* y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
)";

struct ScaleFiles {
    test::TempDir dir;
    std::vector<float> x, y, after;
    std::filesystem::path lesson;
    explicit ScaleFiles(const std::string& source = kScaleLesson) {
        for (int i = 0; i < 1000; ++i) {
            x.push_back(float(i % 17) - 8.0f);
            y.push_back(float(i) * 0.5f);
            after.push_back(3.0f * x.back() + y.back());
        }
        write_floats(dir.path() / "x.bin", x);
        write_floats(dir.path() / "y.bin", y);
        write_floats(dir.path() / "y.after.bin", after);
        lesson = dir.path() / "scale.cu";
        std::ofstream(lesson) << source;
    }
};

test::CpuRun open_lesson(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return test::open_on_cpu(s.str(), path.string());
}

TEST(DataLessons, DataFilesFillTheBuffersAndTheRecordedResultJudgesTheOutput) {
    ScaleFiles files;
    test::CpuRun r = open_lesson(files.lesson);
    const RunReport report = r.session->run();
    ASSERT_TRUE(report.ok()) << (report.error ? report.error->message : "");
    EXPECT_EQ(report.verified, std::optional<bool>(true));
    EXPECT_TRUE(report.checked_against_recording);
    EXPECT_EQ(floats_of(report.outputs.at("y")), files.after);
}

TEST(DataLessons, AWrongOutputDiffersFromTheRecordingByTheElementsItGotWrong) {
    ScaleFiles files;
    // Every 10th element of the recording off by one: exactly 100 mismatches.
    std::vector<float> wrong = files.after;
    for (size_t i = 0; i < wrong.size(); i += 10) wrong[i] += 1.0f;
    write_floats(files.dir.path() / "y.after.bin", wrong);
    test::CpuRun r = open_lesson(files.lesson);
    const RunReport report = r.session->run();
    EXPECT_EQ(report.verified, std::optional<bool>(false));
    EXPECT_EQ(report.mismatched_elements, 100u);
}

TEST(DataLessons, ARecordingIsNotUsedForParametersItWasNotMadeWith) {
    ScaleFiles files;
    test::CpuRun r = open_lesson(files.lesson);
    ASSERT_TRUE(r.session->set_param("a", "2").ok());
    const RunReport report = r.session->run();
    ASSERT_TRUE(report.ok());
    EXPECT_FALSE(report.verified.has_value());
    EXPECT_EQ(report.not_checked_why, NotCheckedWhy::OffRecord);
    // Its output is still a * x + y for the new a.
    const std::vector<float> y = floats_of(report.outputs.at("y"));
    for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], 2.0f * files.x[i] + files.y[i]) << i;
    // Back to the written value: checked again.
    ASSERT_TRUE(r.session->set_param("a", "3").ok());
    EXPECT_EQ(r.session->run().verified, std::optional<bool>(true));
}

TEST(DataLessons, AMissingOrShortDataFileIsAnErrorOfItsKind) {
    {
        ScaleFiles files;
        std::filesystem::remove(files.dir.path() / "x.bin");
        test::CpuRun r = open_lesson(files.lesson);
        const RunReport report = r.session->run();
        ASSERT_TRUE(report.error.has_value());
        EXPECT_EQ(report.error->kind, ErrorKind::Io);
        EXPECT_FALSE(report.launched);
    }
    {
        ScaleFiles files;
        write_floats(files.dir.path() / "x.bin", std::vector<float>(999, 1.0f));
        test::CpuRun r = open_lesson(files.lesson);
        const RunReport report = r.session->run();
        ASSERT_TRUE(report.error.has_value());
        EXPECT_EQ(report.error->kind, ErrorKind::UserInput);
        EXPECT_FALSE(report.launched);
    }
}

// The header's rules: the lines of its errors.
std::vector<int> error_lines(const std::string& header_lines) {
    const std::string source = "/*@playground\ntitle: t\nparam n: int = 10\nbuffer x: float[n] in\n"
                               "buffer y: float[n] out\nblock: 32\ngrid: 1\n" + header_lines +
                               "*/\n__global__ void k(const float* x, float* y, int n) {}\n"
                               "#ifdef PLAYGROUND_REFERENCE\nvoid ref(const float* x, float* y, int n) {}\n#endif\n";
    const KernelFile f = parse_kernel_source(source, "/tmp/t.cu");
    std::vector<int> lines;
    for (const Diagnostic& d : f.diagnostics)
        if (d.severity == Severity::Error) lines.push_back(d.line);
    return lines;
}

TEST(DataLessons, TheHeaderRefusesDataOutsideTheFolderAndResultsThatCannotBe) {
    using Lines = std::vector<int>;
    EXPECT_EQ(error_lines("result y: data(\"y.bin\")\n"), Lines{});                 // well formed
    EXPECT_EQ(error_lines("reference: ref\n"), Lines{});                             // and so is this
    EXPECT_EQ(error_lines("buffer z: float[n] in data(\"../z.bin\")\n"), Lines{8});    // leaves the folder
    EXPECT_EQ(error_lines("buffer z: float[n] in data(\"/etc/passwd\")\n"), Lines{8}); // absolute
    EXPECT_EQ(error_lines("buffer z: float[n] in data(z.bin)\n"), Lines{8});           // not in quotes
    EXPECT_EQ(error_lines("result x: data(\"x.bin\")\n"), Lines{8});                   // `x` is in
    EXPECT_EQ(error_lines("result q: data(\"q.bin\")\n"), Lines{8});                   // no such buffer
    EXPECT_EQ(error_lines("result y: zeros\n"), Lines{8});                             // not data(...)
    EXPECT_EQ(error_lines("result y: data(\"a.bin\")\nresult y: data(\"b.bin\")\n"), Lines{9});  // twice
    EXPECT_EQ(error_lines("result y: data(\"y.bin\")\nreference: ref\n"), Lines{9});   // both ways of checking
    EXPECT_EQ(error_lines("buffer z: float[n] in offset -1\n"), Lines{8});             // not a count
    const KernelFile f = parse_kernel_source(
        "/*@playground\ntitle: t\nbuffer x: int[10] in data(\"x.bin\") offset 3\nbuffer y: int[10] out offset 2\n*/\n"
        "__global__ void k(const int* x, int* y) {}\n",
        "/tmp/t.cu");
    ASSERT_EQ(f.spec.buffers.size(), 2u);
    EXPECT_EQ(f.spec.buffers[0].offset, 3u);
    EXPECT_EQ(f.spec.buffers[0].init.kind, BufferInit::Kind::Data);
    EXPECT_EQ(f.spec.buffers[0].init.data, "x.bin");
    EXPECT_EQ(f.spec.buffers[1].offset, 2u);
    EXPECT_EQ(f.spec.buffers[1].init.kind, BufferInit::Kind::Zeros);
}

// ---- lesson_from_launch on programs the CPU program runner ran -------------------------------------------------

class LaunchLessons : public ::testing::Test {
protected:
    void SetUp() override {
        auto runner = make_cpu_program_runner();
        if (!runner) GTEST_SKIP() << "no host compiler: " << runner.error().message;
        runner_ = std::move(*runner);
    }
    ProgramRun run(const std::string& name, std::vector<std::string> args = {}) {
        request_ = {};
        request_.path = std::string(CP_TEST_DATA_DIR) + "/programs/" + name;
        std::ifstream in(request_.path);
        std::stringstream s;
        s << in.rdbuf();
        request_.source = s.str();
        request_.args = std::move(args);
        request_.capture_limit = uint64_t(64) << 20;
        return runner_->run(request_);
    }
    std::unique_ptr<ProgramRunner> runner_;
    ProgramRequest request_;
    test::TempDir dir_;
};

// vector_add.cu: c = a + b over 1,000,003 elements. The lesson's c must hold a + b of its own a.bin and b.bin, as
// summed here, and verify against the recording.
TEST_F(LaunchLessons, AVectorAddLaunchBecomesALessonThatVerifies) {
    const ProgramRun r = run("vector_add.cu");
    ASSERT_EQ(r.launches.size(), 1u);
    auto lesson = lesson_from_launch(request_, r, 0);
    ASSERT_TRUE(lesson.ok()) << lesson.error().message;
    auto path = write_program_lesson(*lesson, dir_.path() / "vadd");
    ASSERT_TRUE(path.ok()) << path.error().message;
    test::CpuRun s = open_lesson(*path);
    const RunReport report = s.session->run();
    ASSERT_TRUE(report.ok()) << (report.error ? report.error->message : "");
    EXPECT_EQ(report.verified, std::optional<bool>(true));
    EXPECT_EQ(report.resolved->grid.x, r.launches[0].grid.x);
    EXPECT_EQ(report.resolved->block.x, r.launches[0].block.x);
    auto file_floats = [&](const std::string& name) {
        std::ifstream in(dir_.path() / "vadd" / name, std::ios::binary);
        std::vector<float> v(1000003);
        in.read(reinterpret_cast<char*>(v.data()), std::streamsize(v.size() * 4));
        EXPECT_EQ(in.gcount(), std::streamsize(v.size() * 4)) << name;
        return v;
    };
    const std::vector<float> a = file_floats("a.bin"), b = file_floats("b.bin");
    const std::vector<float> c = floats_of(report.outputs.at("c"));
    ASSERT_EQ(c.size(), a.size());
    for (size_t i = 0; i < c.size(); ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
}

TEST_F(LaunchLessons, LaunchesThatCannotStandAloneAreRefusedAsUnsupported) {
    const ProgramRun constant = run("constant_filter.cu");
    ASSERT_FALSE(constant.launches.empty());
    auto c = lesson_from_launch(request_, constant, 0);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.error().kind, ErrorKind::Unsupported);
    const ProgramRun structs = run("struct_of_pointers.cu");
    ASSERT_FALSE(structs.launches.empty());
    auto s = lesson_from_launch(request_, structs, 0);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().kind, ErrorKind::Unsupported);
    auto none = lesson_from_launch(request_, structs, 99);
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().kind, ErrorKind::Unsupported);
}

// A template kernel launched as axpy<<<...>>>(a, x, y, n) with float arguments: the lesson names the instantiation
// and verifies.
TEST_F(LaunchLessons, ATemplateLaunchIsSavedAsItsInstantiation) {
    const ProgramRun r = run("template_kernel.cu");
    ASSERT_FALSE(r.launches.empty());
    auto lesson = lesson_from_launch(request_, r, 0);
    ASSERT_TRUE(lesson.ok()) << lesson.error().message;
    EXPECT_NE(lesson->source.find("kernel: " + r.launches[0].instance + "\n"), std::string::npos);
    auto path = write_program_lesson(*lesson, dir_.path() / "axpy");
    ASSERT_TRUE(path.ok());
    test::CpuRun s = open_lesson(*path);
    EXPECT_EQ(s.session->run().verified, std::optional<bool>(true));
}

}  // namespace
}  // namespace cp
