// Whole programs with their kernels on the GPU (issue 36), through the binary: the same course-style programs as
// tests/cli/program_cli_test.cpp, run with --backend cuda, print what their nvcc builds print on the H200 (the
// expected files) and exit the same; a kernel that faults gives the program CUDA's own sticky error; the launches
// come back with their GPU times, arguments and buffers; __managed__ variables, host crashes and endless host code
// behave as on the CPU backend. Skips without a device.
#include "gpu_test_support.h"
#include "core/backends/registry.h"
#include "core/engine/program_api.h"
#include "support/process.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>
#include <sstream>
#include "test_paths.h"

namespace cp::gpu_test {
namespace {

using Json = nlohmann::json;
using test::ProcessResult;

const std::string kPrograms = std::string(CP_TEST_DATA_DIR) + "/programs";

std::string text_of(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// The run of programs/NAME as the window asks for it.
ProgramRequest request_for(const std::string& name) {
    ProgramRequest r;
    r.path = kPrograms + "/" + name;
    r.source = text_of(r.path);
    return r;
}

class ProgramsOnGpu : public ::testing::Test {
protected:
    void SetUp() override {
        if (auto why = cuda_unavailable()) GTEST_SKIP() << "no CUDA device: " << *why;
    }
    // `cuda-playground run ARGS --backend cuda` (the file first in ARGS), with a cache folder of this test program.
    ProcessResult run(std::vector<std::string> args) {
        args.insert(args.begin(), {CP_BINARY, "run"});
        args.insert(args.begin() + 3, {"--backend", "cuda"});
        return test::run_process(args, {"CUDA_PLAYGROUND_CACHE_DIR=" + cache_.path().string(),
                                        "CUDA_PLAYGROUND_USER_DIR=" + cache_.path().string()});
    }
    Json run_json(std::vector<std::string> args) {
        args.insert(args.begin() + 1, {"--json", "-"});
        const ProcessResult r = run(args);
        try {
            return Json::parse(r.out);
        } catch (const std::exception&) {
            ADD_FAILURE() << "no JSON: " << r.out << r.err;
            return Json::object();
        }
    }
    static inline test::TempDir cache_;  // one for the suite: its tests reuse each other's compiles
};

TEST_F(ProgramsOnGpu, EachPrintsWhatItsNvccBuildPrintsAndExitsTheSame) {
    const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
        {"vector_add", {kPrograms + "/vector_add.cu"}},
        {"reduce_two_launches", {kPrograms + "/reduce_two_launches.cu"}},
        {"stencil_1d", {kPrograms + "/stencil_1d.cu"}},
        {"managed_memory", {kPrograms + "/managed_memory.cu"}},
        {"streams_events", {kPrograms + "/streams_events.cu"}},
        {"constant_filter", {kPrograms + "/constant_filter.cu"}},
        {"struct_of_pointers", {kPrograms + "/struct_of_pointers.cu"}},
        {"template_kernel", {kPrograms + "/template_kernel.cu"}},
        {"header_kernels", {kPrograms + "/header_kernels.cu"}},  // kernels in its header, overloaded, unnamed
        {"bad_block", {kPrograms + "/bad_block.cu"}},
        {"exit_status", {kPrograms + "/exit_status.cu"}},
        {"refused_launches", {kPrograms + "/refused_launches.cu"}},
        {"grid_sync", {kPrograms + "/grid_sync.cu"}},  // cudaLaunchCooperativeKernel and this_grid().sync()
        {"matrix_scale", {kPrograms + "/samples/matrix_scale.cu", "-I", kPrograms + "/Common", "--", "-device=0"}},
    };
    for (const auto& [name, args] : cases) {
        const ProcessResult r = run(args);
        EXPECT_EQ(r.out, text_of(kPrograms + "/expected/" + name + ".out")) << name << "\n" << r.err;
        EXPECT_EQ(r.exit_code, std::stoi(text_of(kPrograms + "/expected/" + name + ".rc"))) << name << "\n" << r.err;
    }
}

// Each launch with its GPU time, its arguments as the kernel took them (`d_in + RADIUS`: 12 bytes into `d_in`), and
// for a template launched deduced and written, the instantiation each ran.
TEST_F(ProgramsOnGpu, LaunchesComeBackWithTimesArgumentsAndBuffers) {
    const Json stencil = run_json({kPrograms + "/stencil_1d.cu"});
    ASSERT_EQ(stencil.value("end", ""), "returned") << stencil.dump();
    EXPECT_EQ(stencil.at("backend"), "cuda");
    EXPECT_EQ(stencil.at("device").get<std::string>().find("CPU"), std::string::npos);
    ASSERT_EQ(stencil.at("launches").size(), 1u);
    const Json& l = stencil.at("launches")[0];
    EXPECT_GT(l.at("ms").get<double>(), 0.0);
    EXPECT_LT(l.at("ms").get<double>(), 100.0);
    ASSERT_EQ(l.at("args").size(), 2u);
    EXPECT_EQ(l.at("args")[0].at("buffer"), "d_in");
    EXPECT_EQ(l.at("args")[0].at("offset"), 3 * 4);
    EXPECT_EQ(l.at("args")[1].at("buffer"), "d_out");

    const Json t = run_json({kPrograms + "/template_kernel.cu"});
    ASSERT_EQ(t.at("launches").size(), 4u);
    // axpy<T>(a, x, y, n) with T = float, then int: the scalar `a` as the kernel took it (1.5f, then 3).
    const float a = 1.5f;
    unsigned char bytes[4];
    std::memcpy(bytes, &a, 4);
    char hex[9];
    std::snprintf(hex, sizeof hex, "%02x%02x%02x%02x", bytes[0], bytes[1], bytes[2], bytes[3]);
    EXPECT_EQ(t.at("launches")[0].at("args")[0].at("bytes"), hex);
    EXPECT_EQ(t.at("launches")[1].at("args")[0].at("bytes"), hex);
    EXPECT_EQ(t.at("launches")[2].at("args")[0].at("bytes"), "03000000");
    for (const Json& launch : t.at("launches")) EXPECT_EQ(launch.at("cuda_error"), 0);
}

// The capture on a GPU: each buffer before and after its launch, the after bytes computed here.
// Kernels of the program's header, one overloaded for float and double, and one with an unnamed parameter: each
// launch runs its own function on the GPU with its arguments as the kernel took them; the header's launch is named
// by the header.
TEST_F(ProgramsOnGpu, HeaderOverloadedAndUnnamedParameterKernelsRunOnTheGpu) {
    const std::string file = kPrograms + "/header_kernels.cu";
    const Json j = run_json({file});
    ASSERT_EQ(j.value("end", ""), "returned") << j.dump();
    const Json& launches = j.at("launches");
    ASSERT_EQ(launches.size(), 4u);
    for (const Json& l : launches) EXPECT_EQ(l.at("cuda_error"), 0) << l.dump();
    EXPECT_EQ(launches[1].at("file"), "header_kernels.cuh");
    EXPECT_EQ(launches[1].at("kernel"), "block_sums");
    // scale(float*, float, int) took 2.0f, scale(double*, double, int) took 3.0, in their own types.
    const float two = 2.0f;
    const double three = 3.0;
    EXPECT_EQ(launches[0].at("args")[1].at("bytes"), hex_of_bytes(&two, sizeof two));
    EXPECT_EQ(launches[2].at("args")[1].at("bytes"), hex_of_bytes(&three, sizeof three));
    // fill(int*, int, int) was passed a literal 0 for its unnamed int.
    EXPECT_EQ(launches[3].at("args")[1].at("size"), 4);
    EXPECT_EQ(launches[3].at("args")[1].at("bytes"), "00000000");
}

TEST_F(ProgramsOnGpu, TheCaptureHoldsTheBuffersBeforeAndAfter) {
    test::TempDir dir;
    const std::string capture = (dir.path() / "vadd.cpcap").string();
    const ProcessResult r = run({kPrograms + "/vector_add.cu", "--capture", capture});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string file = text_of(capture);
    const size_t first = file.find('\n'), second = file.find('\n', first + 1);
    ASSERT_NE(second, std::string::npos);
    const Json j = Json::parse(file.substr(first + 1, second - first - 1));
    const std::string data = file.substr(second + 1);
    ASSERT_EQ(j.at("launches").size(), 1u);
    const int n = 1000003;
    std::vector<float> a(n), b(n), c(n);
    for (const Json& buf : j.at("launches")[0].at("buffers")) {
        ASSERT_TRUE(buf.at("captured").get<bool>()) << buf.dump();
        ASSERT_TRUE(buf.contains("after_at")) << buf.dump();
        ASSERT_LE(buf.at("after_at").get<size_t>() + size_t(n) * 4, data.size());
        std::vector<float>* into = buf.at("name") == "d_a" ? &a : buf.at("name") == "d_b" ? &b : &c;
        std::memcpy(into->data(), data.data() + buf.at("after_at").get<size_t>(), size_t(n) * 4);
    }
    for (int i = 0; i < n; i += 997) {
        ASSERT_EQ(a[i], float(i % 1000));
        ASSERT_EQ(b[i], 2.0f * float(i % 77));
        ASSERT_EQ(c[i], a[i] + b[i]) << "element " << i;
    }
}

TEST_F(ProgramsOnGpu, HostCodeThatCrashesOrNeverEndsIsReportedAsOnTheCpu) {
    const Json crash = run_json({kPrograms + "/host_segfault.cu"});
    EXPECT_EQ(crash.value("end", ""), "crashed") << crash.dump();
    EXPECT_EQ(crash.at("stdout"), "before the crash\n");
    EXPECT_EQ(crash.at("error").at("kind"), "fault");
    // A cudaMalloc pointer read on the host: a GPU address the host cannot read.
    const Json device_read = run_json({kPrograms + "/host_reads_device.cu"});
    EXPECT_EQ(device_read.value("end", ""), "crashed") << device_read.dump();
    EXPECT_EQ(device_read.at("stdout"), "launched\n");
    EXPECT_EQ(device_read.at("error").at("kind"), "fault");
    EXPECT_EQ(device_read.at("error").at("name"), "HOST_READ_DEVICE_MEMORY");
    const Json loop = run_json({kPrograms + "/host_loop.cu", "--time-limit", "2"});
    EXPECT_EQ(loop.value("end", ""), "stopped") << loop.dump();
    EXPECT_EQ(loop.at("error").at("kind"), "hang");
}

// The GPU program worker opens the device before its sandbox, and the sandbox then holds the host code as the CPU
// worker's does: no file outside the program's folder is read, none is written, and the run says what was tried.
TEST_F(ProgramsOnGpu, TheHostCodeIsSandboxedAsOnTheCpu) {
    test::TempDir dir;
    const auto file = dir.path() / "sneaky.cu";
    std::ofstream(file) << "#include <cstdio>\n"
                           "__global__ void k(int* p) { p[threadIdx.x] = threadIdx.x; }\n"
                           "int main() {\n"
                           "    int* d; cudaMalloc(&d, 128);\n"
                           "    k<<<1, 32>>>(d);\n"
                           "    printf(\"sync: %d\\n\", (int)cudaDeviceSynchronize());\n"
                           "    FILE* f = fopen(\"/etc/hostname\", \"r\");\n"
                           "    printf(\"read: %s\\n\", f ? \"opened\" : \"refused\");\n"
                           "    FILE* w = fopen(\"" << (dir.path() / "written.txt").string() << "\", \"w\");\n"
                           "    printf(\"write: %s\\n\", w ? \"opened\" : \"refused\");\n"
                           "    return 0;\n"
                           "}\n";
    const Json j = run_json({file.string()});
    EXPECT_EQ(j.value("stdout", ""), "sync: 0\nread: refused\nwrite: refused\n") << j.dump();
    // Each call failed in the program, which went on and returned; the run lists both attempts.
    EXPECT_EQ(j.value("end", ""), "returned") << j.dump();
    EXPECT_EQ(j.value("exit_status", -1), 0) << j.dump();
    ASSERT_TRUE(j.contains("refused")) << j.dump();
    EXPECT_EQ(j.at("refused").size(), 2u) << j.dump();
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "written.txt"));
}

// A kernel that never ends: the time limit stops the run (its worker with it), naming the launch and its line.
TEST_F(ProgramsOnGpu, AKernelThatNeverEndsIsStoppedWithItsLaunchNamed) {
    const std::string file = kPrograms + "/kernel_loop.cu";
    const Json j = run_json({file, "--time-limit", "3"});
    EXPECT_EQ(j.value("end", ""), "stopped") << j.dump();
    EXPECT_EQ(j.at("stdout"), "launching\n");
    EXPECT_EQ(j.at("error").at("kind"), "hang");
    EXPECT_NE(j.at("error").at("message").get<std::string>().find("`spin`"), std::string::npos) << j.dump();
    EXPECT_EQ(j.at("error").at("line"), 15);
    // The next run gets a fresh worker and runs as written.
    EXPECT_EQ(run({kPrograms + "/vector_add.cu"}).out, text_of(kPrograms + "/expected/vector_add.out"));
}

// Last (a fault upsets later GL work on the machine): a kernel writing 256 GiB past its buffer. The program sees
// what its nvcc build saw on the H200, cudaErrorIllegalAddress from the next waiting call on, and the launch says so.
// A launch the GPU ran, saved as a lesson (`--save-launch`): the lesson runs on the GPU and matches what the
// program's launch wrote; the stencil's pointers 3 elements into their buffers, the ripple's picture also on the CPU
// backend, whose sqrtf and cosf may differ from the GPU's in the last bits (within the lesson's tolerance).
TEST_F(ProgramsOnGpu, ALaunchSavedAsALessonMatchesItselfOnTheGpuAndOnTheCpu) {
    test::TempDir dir;
    for (const char* name : {"stencil_1d", "ripple"}) {
        const std::string out = (dir.path() / name).string();
        const ProcessResult saved = run({kPrograms + "/" + name + ".cu", "--save-launch", "1", "--out-dir", out});
        ASSERT_EQ(saved.exit_code, 0) << saved.err;
        const std::string lesson = out + "/" + name + ".cu";
        const Json gpu = run_json({lesson});
        EXPECT_EQ(gpu.value("backend", ""), "cuda") << name;
        EXPECT_EQ(gpu.at("check").at("state"), "matches") << name << ": " << gpu.at("check").dump();
        EXPECT_EQ(gpu.at("check").at("against"), "recorded_result");
    }
    const ProcessResult cpu = test::run_process(
        {CP_BINARY, "run", (dir.path() / "ripple" / "ripple.cu").string(), "--backend", "cpu", "--json", "-"},
        {"CUDA_PLAYGROUND_CACHE_DIR=" + cache_.path().string()});
    const Json j = Json::parse(cpu.out);
    EXPECT_EQ(j.at("check").at("state"), "matches") << j.at("check").dump() << " max error " << j.at("max_abs_error");
}

TEST_F(ProgramsOnGpu, ZzAKernelThatFaultsGivesTheProgramCudasStickyError) {
    const ProcessResult r = run({kPrograms + "/wild_write.cu"});
    EXPECT_EQ(r.out, text_of(kPrograms + "/expected/wild_write.out")) << r.err;
    EXPECT_EQ(r.exit_code, std::stoi(text_of(kPrograms + "/expected/wild_write.rc")));
    const Json j = run_json({kPrograms + "/wild_write.cu"});
    ASSERT_EQ(j.at("launches").size(), 1u);
    EXPECT_EQ(j.at("launches")[0].at("cuda_error"), 700);
    EXPECT_EQ(j.at("launches")[0].at("error").at("kind"), "fault");
}

// The whole program with one launch changed, on the GPU: vadd with n = 1000 (the scalar in the kernel's own
// parameter), and the program's check counts the elements it then finds wrong, computed here.
TEST_F(ProgramsOnGpu, TheProgramRunsAgainWithALaunchChanged) {
    auto made = make_program_runner("cuda");
    ASSERT_TRUE(made.ok()) << made.error().message;
    ProgramRequest request = request_for("vector_add.cu");
    const int m = 1000;
    request.changes[0].scalars[3].resize(4);
    std::memcpy(request.changes[0].scalars[3].data(), &m, 4);
    request.changes[0].block = Dim3{128, 1, 1};
    const ProgramRun r = made->runner->run(request);
    int wrong = 0;
    for (int i = m; i < 1000003; ++i) wrong += float(i % 1000) + 2.0f * float(i % 77) != 0.0f;
    EXPECT_EQ(r.stdout_text, "blocks: 3907, c[12345] = 0.0\nFAILED: " + std::to_string(wrong) + " wrong\n");
    EXPECT_EQ(r.exit_status, 1);
    ASSERT_EQ(r.launches.size(), 1u);
    EXPECT_TRUE(r.launches[0].changed);
    EXPECT_EQ(r.launches[0].block.x, 128u);
}

// One runner, as the window keeps: after a program whose kernel faulted, the next program runs on a fresh context.
TEST_F(ProgramsOnGpu, ZzAfterAFaultTheNextProgramRunsOnAFreshContext) {
    auto made = make_program_runner("cuda");
    ASSERT_TRUE(made.ok()) << made.error().message;
    const ProgramRun first = made->runner->run(request_for("wild_write.cu"));
    ASSERT_EQ(first.launches.size(), 1u);
    EXPECT_EQ(first.launches[0].cuda_error, 700);
    const ProgramRun second = made->runner->run(request_for("vector_add.cu"));
    EXPECT_EQ(second.end, ProgramRun::End::Returned) << (second.error ? second.error->message : "");
    EXPECT_EQ(second.stdout_text, text_of(kPrograms + "/expected/vector_add.out"));
    ASSERT_EQ(second.launches.size(), 1u);
    EXPECT_EQ(second.launches[0].cuda_error, 0);
}

}  // namespace
}  // namespace cp::gpu_test
