// A lesson exported as a standalone program (issue 38, core/session/lesson_export.h): every library lesson's
// program builds with nvcc and, run as written by the playground's CPU program runner, prints the verdict the
// lesson's own run on the CPU backend gives (the same check line, the same "failed as expected"); the program's
// launches get the inputs the lesson fills and leave the outputs the lesson's run leaves; `constant` lines and
// recorded results travel with it; a program and a file without a header are refused by kind.
#include "core/cpu/program_runner.h"
#include "core/data/buffer_init.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/lesson_export.h"
#include "core/session/report_text.h"
#include "core/toolkit/nvrtc_compiler.h"
#include "unit/cpu_session.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <future>
#include <sstream>

#include "support/process.h"
#include "test_paths.h"

namespace cp {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> library_lessons() {
    std::vector<fs::path> out;
    for (const auto& e : fs::recursive_directory_iterator(fs::path(CP_SOURCE_DIR) / "kernels"))
        if (e.path().extension() == ".cu") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

// The exported program's folder and its .cu file.
struct Exported {
    test::TempDir dir;
    fs::path program;
    LessonExport files;
};

std::unique_ptr<Exported> export_to_temp(const fs::path& lesson) {
    auto file = load_kernel_file(lesson);
    EXPECT_TRUE(file.ok()) << lesson;
    if (!file) return nullptr;
    auto exported = export_lesson(*file);
    EXPECT_TRUE(exported.ok()) << lesson << ": " << (exported ? "" : exported.error().full());
    if (!exported) return nullptr;
    auto out = std::make_unique<Exported>();
    auto written = write_lesson_export(*exported, out->dir.path());
    EXPECT_TRUE(written.ok());
    if (!written) return nullptr;
    out->program = *written;
    out->files = std::move(*exported);
    return out;
}

std::string line_starting(const std::string& text, const std::string& prefix) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(prefix, 0) == 0) return line.substr(prefix.size());
    return "<no line starting with `" + prefix + "`>";
}

ProgramRun run_program(ProgramRunner& runner, const fs::path& program, uint64_t capture = 0) {
    ProgramRequest request;
    request.source = test::read_file(program);
    request.path = program.string();
    request.capture_limit = capture;
    return runner.run(request);
}

// The bytes of the program's `d_BUFFER` as `launch` captured them, before it ran or after; empty, with a failure,
// where the launch does not reach that buffer or did not capture it.
std::vector<std::byte> captured_bytes(const ProgramRun& program, const ProgramLaunch& launch, const std::string& buffer,
                                      bool after) {
    for (const ProgramBuffer& b : launch.buffers) {
        if (b.name != "d_" + buffer) continue;
        EXPECT_TRUE(b.captured);
        const uint64_t at = after ? b.after_at : b.before_at;
        if (!b.captured || at + b.bytes > program.capture_data.size()) return {};
        std::vector<std::byte> bytes(b.bytes);
        std::memcpy(bytes.data(), program.capture_data.data() + at, b.bytes);
        return bytes;
    }
    ADD_FAILURE() << "the launch does not reach d_" << buffer;
    return {};
}

std::string lesson_name(const fs::path& p) {
    return fs::relative(p, fs::path(CP_SOURCE_DIR) / "kernels").replace_extension().string();
}

// Every library lesson, in three parts (so that two cores share them): exported, run as a program on the CPU
// backend, and compared with the lesson's own run there.
class EveryLesson : public ::testing::TestWithParam<int> {};

TEST_P(EveryLesson, RunsAsAProgramWithTheVerdictOfTheLessonsOwnRun) {
    auto runner = make_cpu_program_runner();
    ASSERT_TRUE(runner.ok()) << runner.error().full();
    const std::vector<fs::path> lessons = library_lessons();
    ASSERT_GE(lessons.size(), 40u);
    for (size_t i = size_t(GetParam()); i < lessons.size(); i += 3) {
        const fs::path& lesson = lessons[i];
        SCOPED_TRACE(lesson_name(lesson));
        auto exported = export_to_temp(lesson);
        ASSERT_TRUE(exported);
        const ProgramRun program = run_program(**runner, exported->program);
        ASSERT_TRUE(program.compiled) << program.compile_log;
        ASSERT_EQ(program.end, ProgramRun::End::Returned) << program.stdout_text << program.stderr_text;
        // Its device code as a GPU runs it (`run --backend cuda`): the host code and the host-only headers left
        // out, NVRTC compiles what remains.
        auto as_program = load_kernel_file(exported->program);
        ASSERT_TRUE(as_program.ok());
        CompileRequest device;
        device.source = as_program->compile_source;
        device.path = exported->program.string();
        device.load = false;
        const CompileResult nvrtc = compile_with_nvrtc(device, "compute_90", nullptr, nullptr, nullptr);
        EXPECT_TRUE(nvrtc.ok) << (nvrtc.diagnostics.empty() ? std::string() : nvrtc.diagnostics.front().str());

        test::CpuRun own = test::open_on_cpu(test::read_file(lesson), lesson.string());
        const RunReport report = own.session->run();
        const bool buggy = !own.session->kernel().spec.expect_clauses.empty();

        // The check line, as `run` prints it.
        if (report.verified == true) {
            EXPECT_EQ(line_starting(program.stdout_text, "check:    "), verdict_text(report, VerdictOf::Run, false));
            if (!buggy) {
                EXPECT_NE(program.stdout_text.find("\nverified\n"), std::string::npos) << program.stdout_text;
            }
        } else if (report.verified == false) {
            // Wrong on purpose; for a race (missing_syncthreads) how wrong depends on the threads' order, which
            // differs from run to run.
            EXPECT_EQ(line_starting(program.stdout_text, "check:    ").rfind("Differs from the CPU reference: ", 0), 0u)
                << program.stdout_text;
        } else {
            EXPECT_EQ(line_starting(program.stdout_text, "check:    "), "<no line starting with `check:    `>")
                << "the lesson's run was not checked (" << (report.error ? report.error->message : "") << ")";
        }
        // A lesson buggy on purpose: the same sentence on whether it failed as it says.
        if (buggy) {
            EXPECT_EQ(line_starting(program.stdout_text, "lesson:   "), expected_outcome_text(report));
            EXPECT_EQ(report.as_expected, std::optional<bool>(true));
        }
        // Every library lesson verifies or fails as it says: the program's exit status is 0, as `run`'s is.
        EXPECT_EQ(program.exit_status, 0) << program.stdout_text;
        // One launch per step and repeat.
        uint64_t launches = 0;
        ASSERT_TRUE(report.resolved);
        for (const ResolvedStep& s : report.resolved->steps) launches += s.repeat;
        if (report.resolved->steps.empty()) launches = 1;
        EXPECT_EQ(program.launches.size(), launches);
    }
}

INSTANTIATE_TEST_SUITE_P(Part, EveryLesson, ::testing::Values(0, 1, 2));

TEST(LessonExport, EveryLessonsProgramBuildsWithNvccWithoutAWarning) {
    const fs::path nvcc = test::cuda_toolkit_tool("nvcc");
    if (nvcc.empty()) GTEST_SKIP() << "no nvcc here (CUDACXX, CUDA_HOME/bin or /usr/local/cuda/bin)";
    const std::vector<fs::path> lessons = library_lessons();
    std::vector<std::unique_ptr<Exported>> programs;
    for (const fs::path& lesson : lessons) {
        programs.push_back(export_to_temp(lesson));
        ASSERT_TRUE(programs.back()) << lesson;
    }
    // Two builds at a time: this machine's cores.
    auto build = [&](size_t first) {
        std::vector<std::pair<size_t, test::ProcessResult>> out;
        for (size_t i = first; i < programs.size(); i += 2) {
            const fs::path exe = programs[i]->dir.path() / programs[i]->files.program;
            out.emplace_back(i, test::run_process({nvcc.string(), "-arch=sm_90", "-O2", "-o", exe.string(),
                                                   programs[i]->program.string()}));
        }
        return out;
    };
    auto a = std::async(std::launch::async, build, 0), b = std::async(std::launch::async, build, 1);
    for (auto* f : {&a, &b}) {
        for (const auto& [i, r] : f->get()) {
            EXPECT_EQ(r.exit_code, 0) << lesson_name(lessons[i]) << ":\n" << r.both();
            EXPECT_EQ(r.both().find("warning"), std::string::npos) << lesson_name(lessons[i]) << ":\n" << r.both();
            EXPECT_TRUE(fs::exists(programs[i]->dir.path() / programs[i]->files.program)) << lesson_name(lessons[i]);
        }
    }
}

// The inputs each launch of the program got are the lesson's (its fills: seeded random numbers, a ramp, the
// photo's pixels), and what the last launch left is what the lesson's run computed.
TEST(LessonExport, TheProgramsLaunchesGetTheLessonsInputsAndLeaveItsOutputs) {
    auto runner = make_cpu_program_runner();
    ASSERT_TRUE(runner.ok()) << runner.error().full();
    for (const char* name : {"basics/vector_add", "image/grayscale", "histogram/atomic_histogram",
                             "patterns/reduce_two_pass", "performance/increment_five_times"}) {
        SCOPED_TRACE(name);
        const fs::path lesson = fs::path(CP_SOURCE_DIR) / "kernels" / (std::string(name) + ".cu");
        auto exported = export_to_temp(lesson);
        ASSERT_TRUE(exported);
        const ProgramRun program = run_program(**runner, exported->program, uint64_t(512) << 20);
        ASSERT_TRUE(program.compiled) << program.compile_log;
        ASSERT_FALSE(program.launches.empty());

        test::CpuRun own = test::open_on_cpu(test::read_file(lesson), lesson.string());
        const RunReport report = own.session->run();
        ASSERT_TRUE(report.ok()) << (report.error ? report.error->message : "");
        const KernelFile& file = own.session->kernel();

        size_t compared = 0;
        for (const BufferSpec& b : file.spec.buffers) {
            const ProgramLaunch& first = program.launches.front();
            if (std::none_of(first.buffers.begin(), first.buffers.end(),
                             [&](const ProgramBuffer& p) { return p.name == "d_" + b.name; }))
                continue;  // a later step's buffer
            HostBuffer expected;
            expected.type = b.type;
            expected.bytes.resize(report.resolved->buffer_counts.at(b.name) * elem_info(b.type).size);
            const auto image = report.resolved->images.find(b.name);
            ASSERT_TRUE(fill_buffer(b, expected,
                                    image == report.resolved->images.end() ? nullptr : image->second.image.get())
                            .ok());
            EXPECT_EQ(captured_bytes(program, first, b.name, false), expected.bytes) << b.name << " before the first launch";
            ++compared;
        }
        EXPECT_GT(compared, 0u);
        for (const auto& [buffer, bytes] : report.outputs) {
            const ProgramLaunch& last = program.launches.back();
            if (std::none_of(last.buffers.begin(), last.buffers.end(),
                             [&](const ProgramBuffer& p) { return p.name == "d_" + buffer; }))
                continue;
            EXPECT_EQ(captured_bytes(program, last, buffer, true), bytes.bytes) << buffer << " after the last launch";
        }
    }
}

// A lesson of one's own with a `constant` line (a Gaussian's weights), a buffer not a multiple of the block and a
// uint parameter: exported, its program verifies; its weights are the header's, so a changed sigma changes them.
TEST(LessonExport, ConstantLinesAreWrittenIntoTheProgram) {
    test::TempDir dir;
    const fs::path lesson = dir.write("smooth.cu", R"(/*@playground
title: Smooth with constant weights
param n: int = 1001
param sigma: float = 1.5
param scale: uint = 3
constant w: float[5] = gaussian(sigma)
buffer x: float[n] in random(seed=9, min=-2, max=2)
buffer y: float[n] out zeros
block: 128
grid: ceil(n / block.x)
reference: smooth_reference
tolerance: 1e-5
*/
__constant__ float w[5];
__global__ void smooth(const float* x, float* y, int n, unsigned int scale)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0;
    for (int k = -2; k <= 2; ++k) s += w[k + 2] * x[min(max(i + k, 0), n - 1)];
    y[i] = s * scale;
}
#ifdef PLAYGROUND_REFERENCE
#include <cmath>
static void smooth_reference(const float* x, float* y, int n, unsigned int scale)
{
    double g[5], t = 0;
    for (int k = 0; k < 5; ++k) t += g[k] = std::exp(-(k - 2.0) * (k - 2.0) / (2 * 1.5 * 1.5));
    for (int i = 0; i < n; ++i) {
        double s = 0;
        for (int k = -2; k <= 2; ++k) s += g[k + 2] / t * x[std::min(std::max(i + k, 0), n - 1)];
        y[i] = float(s * scale);
    }
}
#endif
)");
    auto file = load_kernel_file(lesson);
    ASSERT_TRUE(file.ok());
    auto exported = export_lesson(*file);
    ASSERT_TRUE(exported.ok()) << exported.error().full();
    const std::string& text = exported->files.front().text;
    // The weights, as the playground computes them, in the declaration.
    double g[5], t = 0;
    for (int k = 0; k < 5; ++k) t += g[k] = std::exp(-(k - 2.0) * (k - 2.0) / (2 * 1.5 * 1.5));
    const size_t decl = text.find("__constant__ float w[5] = {");
    ASSERT_NE(decl, std::string::npos) << text;
    const float first = std::strtof(text.c_str() + decl + std::strlen("__constant__ float w[5] = {"), nullptr);
    EXPECT_NEAR(first, g[0] / t, 1e-7);
    EXPECT_NE(text.find("const unsigned int scale = 3u;"), std::string::npos);

    test::TempDir out;
    auto written = write_lesson_export(*exported, out.path());
    ASSERT_TRUE(written.ok());
    auto runner = make_cpu_program_runner();
    ASSERT_TRUE(runner.ok());
    const ProgramRun program = run_program(**runner, *written);
    ASSERT_TRUE(program.compiled) << program.compile_log;
    EXPECT_EQ(program.exit_status, 0) << program.stdout_text << program.stderr_text;
    EXPECT_EQ(line_starting(program.stdout_text, "check:    ").rfind("Matches the CPU reference (max error ", 0), 0u)
        << program.stdout_text;
    ASSERT_EQ(program.launches.size(), 1u);
    EXPECT_EQ(program.launches[0].grid.x, 8u);  // ceil(1001 / 128)
}

// A program's launch saved as a lesson (data files, an offset, a recorded result) exports with its bytes: the
// program checks against the recording and verifies; a wrong recording fails it with status 2.
TEST(LessonExport, RecordedResultsTravelWithTheProgram) {
    test::TempDir dir;
    std::vector<float> x(1000), y(1000), after(1000);
    for (int i = 0; i < 1000; ++i) {
        x[size_t(i)] = float(i % 13) - 6.0f;
        y[size_t(i)] = float(i) * 0.25f;
        after[size_t(i)] = 2.0f * x[size_t(i)] + y[size_t(i)];
    }
    auto write = [&](const std::string& name, const std::vector<float>& v) {
        std::ofstream(dir.path() / name, std::ios::binary)
            .write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * 4));
    };
    write("x.bin", x);
    write("y.bin", y);
    write("y.after.bin", after);
    const char* source = R"(/*@playground
title: axpy as launched
param n: int = 1000
buffer x: float[1000] in data("x.bin")
buffer y: float[1000] inout data("y.bin")
result y: data("y.after.bin")
block: 96
grid: 11
*/
__global__ void axpy(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i] + y[i];
}
)";
    const fs::path lesson = dir.write("axpy.cu", source);
    auto runner = make_cpu_program_runner();
    ASSERT_TRUE(runner.ok());
    for (bool spoil : {false, true}) {
        SCOPED_TRACE(spoil ? "a wrong recording" : "the recording");
        if (spoil) {
            std::vector<float> wrong = after;
            wrong[999] += 1.0f;
            write("y.after.bin", wrong);
        }
        auto file = load_kernel_file(lesson);
        ASSERT_TRUE(file.ok());
        auto exported = export_lesson(*file);
        ASSERT_TRUE(exported.ok()) << exported.error().full();
        test::TempDir out;
        auto written = write_lesson_export(*exported, out.path());
        ASSERT_TRUE(written.ok());
        EXPECT_TRUE(fs::exists(out.path() / "axpy_y_recorded.h"));
        const ProgramRun program = run_program(**runner, *written);
        ASSERT_TRUE(program.compiled) << program.compile_log;
        if (!spoil) {
            EXPECT_EQ(program.exit_status, 0) << program.stdout_text;
            EXPECT_EQ(line_starting(program.stdout_text, "check:    "), "Matches the recorded result (max error 0)");
        } else {
            EXPECT_EQ(program.exit_status, 2) << program.stdout_text;
            EXPECT_EQ(line_starting(program.stdout_text, "check:    ").rfind(
                          "Differs from the recorded result: 1 mismatches, max error 1", 0),
                      0u)
                << program.stdout_text;
        }
    }
}

// The embedded bytes are packed four to a 32-bit word: a data file and a recorded result of 1001 bytes (not a whole
// number of words, and every byte value) reach the program's first launch and its check exactly as they were.
TEST(LessonExport, EmbeddedBytesThatAreNotAWholeNumberOfWordsArriveExactly) {
    test::TempDir dir;
    std::vector<unsigned char> in(1001), after(1001);
    for (size_t i = 0; i < in.size(); ++i) {
        in[i] = static_cast<unsigned char>((i * 37 + 11) % 256);
        after[i] = static_cast<unsigned char>(255 - in[i]);
    }
    auto write = [&](const std::string& name, const std::vector<unsigned char>& v) {
        std::ofstream(dir.path() / name, std::ios::binary)
            .write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size()));
    };
    write("in.bin", in);
    write("out.after.bin", after);
    const fs::path lesson = dir.write("invert.cu", R"(/*@playground
title: invert bytes
param n: int = 1001
buffer in: uchar[1001] in data("in.bin")
buffer out: uchar[1001] out zeros
result out: data("out.after.bin")
block: 64
grid: ceil(n / block.x)
*/
__global__ void invert(const unsigned char* in, unsigned char* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (unsigned char)(255 - in[i]);
}
)");
    auto exported = export_to_temp(lesson);
    ASSERT_TRUE(exported);
    auto runner = make_cpu_program_runner();
    ASSERT_TRUE(runner.ok());
    const ProgramRun program = run_program(**runner, exported->program, uint64_t(64) << 20);
    ASSERT_TRUE(program.compiled) << program.compile_log;
    EXPECT_EQ(program.exit_status, 0) << program.stdout_text;
    EXPECT_EQ(line_starting(program.stdout_text, "check:    "), "Matches the recorded result (max error 0)");
    ASSERT_EQ(program.launches.size(), 1u);
    const std::vector<std::byte> got = captured_bytes(program, program.launches.front(), "in", false);
    ASSERT_EQ(got.size(), in.size());
    EXPECT_EQ(std::memcmp(got.data(), in.data(), in.size()), 0);
}

TEST(LessonExport, AProgramAndAFileWithoutAHeaderAreRefusedByKind) {
    test::TempDir dir;
    auto program = load_kernel_file(dir.write("prog.cu", R"(#include <cstdio>
__global__ void k(int* p) { p[threadIdx.x] = 1; }
int main() { int* p; cudaMalloc(&p, 64); k<<<1, 16>>>(p); cudaDeviceSynchronize(); std::printf("done\n"); }
)"));
    ASSERT_TRUE(program.ok());
    auto refused = export_lesson(*program);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().kind, ErrorKind::Unsupported);  // a program: shared as it is

    auto bare = load_kernel_file(dir.write("bare.cu", "__global__ void k(int* p) { p[threadIdx.x] = 1; }\n"));
    ASSERT_TRUE(bare.ok());
    auto bare_refused = export_lesson(*bare);
    ASSERT_FALSE(bare_refused.ok());
    EXPECT_EQ(bare_refused.error().kind, ErrorKind::Metadata);  // no header: nothing says how to launch it

    auto both = load_kernel_file(dir.write("both.cu", R"(/*@playground
title: both
buffer p: int[16] out zeros
block: 16
*/
__global__ void k(int* p) { p[threadIdx.x] = 1; }
int main() { return 0; }
)"));
    ASSERT_TRUE(both.ok());
    auto program_refused = export_lesson(*both);
    ASSERT_FALSE(program_refused.ok());
    EXPECT_EQ(program_refused.error().kind, ErrorKind::Unsupported);

    auto broken = load_kernel_file(dir.write("broken.cu", R"(/*@playground
title: broken
buffer p: int[16] out zeros
buffer q: int[16] out zeros
block: 16
*/
__global__ void k(int* p) { p[threadIdx.x] = 1; }
)"));
    ASSERT_TRUE(broken.ok());
    auto broken_refused = export_lesson(*broken);
    ASSERT_FALSE(broken_refused.ok());
    EXPECT_EQ(broken_refused.error().kind, ErrorKind::Metadata);
}

}  // namespace
}  // namespace cp
