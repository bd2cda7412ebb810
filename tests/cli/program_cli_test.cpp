// Whole programs run as written (issue 36): course-style programs in tests/data/programs, each with its own main(),
// run by `cuda-playground run` on the CPU backend. Their standard output and exit status must equal what the same
// program printed when built with nvcc and run on a GPU (expected/NAME.out and .rc, recorded on an NVIDIA H200);
// the launches, refusals and faults come back as data in `run --json`.
#include "cli_support.h"
#include "support/process.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using cp::test::cli;
using cp::test::ProcessResult;
using Json = nlohmann::json;

namespace {

const std::string kPrograms = std::string(CP_TEST_DATA_DIR) + "/programs";

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// `cuda-playground run ARGS...` on the CPU backend unless ARGS name one (on a GPU machine the default is the GPU,
// whose runs tests/gpu/program_gpu_test.cpp checks).
ProcessResult run_cli(std::vector<std::string> argv) {
    if (!argv.empty() && argv[0] == "run" && std::find(argv.begin(), argv.end(), "--backend") == argv.end())
        argv.insert(argv.begin() + std::min<size_t>(2, argv.size()), {"--backend", "cpu"});
    return cli(argv);
}

// The program's run with --json - : the JSON, parsed.
Json run_json(std::vector<std::string> args) {
    std::vector<std::string> argv = {"run"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.begin() + 2, {"--json", "-"});
    const ProcessResult r = run_cli(argv);
    try {
        return Json::parse(r.out);
    } catch (const std::exception&) {
        ADD_FAILURE() << "no JSON from " << args.at(0) << ": " << r.out << r.err;
        return Json::object();
    }
}

// Line `n` (from 1) of `file` that contains `text`, so the tests do not hard-code line numbers.
int line_of(const std::string& file, const std::string& text) {
    std::istringstream in(read_text(file));
    std::string line;
    for (int n = 1; std::getline(in, line); ++n)
        if (line.find(text) != std::string::npos) return n;
    ADD_FAILURE() << "`" << text << "` is not in " << file;
    return 0;
}

struct NvccCase {
    const char* name;                 // expected/NAME.out and .rc
    std::vector<std::string> args;    // after `run`
};

class ProgramAsNvcc : public ::testing::TestWithParam<NvccCase> {};

TEST_P(ProgramAsNvcc, PrintsWhatTheNvccBuildPrintsAndExitsTheSame) {
    const NvccCase& c = GetParam();
    std::vector<std::string> argv = {"run"};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    const ProcessResult r = run_cli(argv);
    const std::string expected = read_text(kPrograms + "/expected/" + c.name + ".out");
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(r.out, expected) << r.err;
    EXPECT_EQ(r.exit_code, std::stoi(read_text(kPrograms + "/expected/" + c.name + ".rc"))) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Programs, ProgramAsNvcc,
    ::testing::Values(NvccCase{"vector_add", {kPrograms + "/vector_add.cu"}},
                      NvccCase{"reduce_two_launches", {kPrograms + "/reduce_two_launches.cu"}},
                      NvccCase{"stencil_1d", {kPrograms + "/stencil_1d.cu"}},
                      NvccCase{"managed_memory", {kPrograms + "/managed_memory.cu"}},
                      NvccCase{"streams_events", {kPrograms + "/streams_events.cu"}},
                      NvccCase{"constant_filter", {kPrograms + "/constant_filter.cu"}},
                      NvccCase{"struct_of_pointers", {kPrograms + "/struct_of_pointers.cu"}},
                      NvccCase{"template_kernel", {kPrograms + "/template_kernel.cu"}},
                      NvccCase{"header_kernels", {kPrograms + "/header_kernels.cu"}},
                      NvccCase{"bad_block", {kPrograms + "/bad_block.cu"}},
                      NvccCase{"exit_status", {kPrograms + "/exit_status.cu"}},
                      NvccCase{"refused_launches", {kPrograms + "/refused_launches.cu"}},
                      NvccCase{"wild_write", {kPrograms + "/wild_write.cu"}},
                      NvccCase{"matrix_scale",
                               {kPrograms + "/samples/matrix_scale.cu", "-I", kPrograms + "/Common", "--",
                                "-device=0"}}),
    [](const ::testing::TestParamInfo<NvccCase>& p) { return std::string(p.param.name); });

TEST(Programs, EveryLaunchComesBackWithItsConfiguration) {
    const std::string file = kPrograms + "/reduce_two_launches.cu";
    const Json j = run_json({file});
    ASSERT_EQ(j.at("end"), "returned");
    EXPECT_EQ(j.at("backend"), "cpu");
    const Json& launches = j.at("launches");
    ASSERT_EQ(launches.size(), 2u);
    EXPECT_EQ(launches[0].at("kernel"), "partial_sums");
    EXPECT_EQ(launches[0].at("grid"), Json::array({120, 1, 1}));
    EXPECT_EQ(launches[0].at("block"), Json::array({256, 1, 1}));
    EXPECT_EQ(launches[0].at("line"), line_of(file, "partial_sums<<<blocks"));
    EXPECT_EQ(launches[1].at("grid"), Json::array({1, 1, 1}));
    EXPECT_EQ(launches[1].at("line"), line_of(file, "partial_sums<<<1"));
    for (const Json& l : launches) {
        EXPECT_EQ(l.at("cuda_error"), 0);
        EXPECT_TRUE(l.at("error").is_null());
    }
}

// The program's own arguments after `--`: the sum of a size that is no multiple of anything, computed here.
// The capture (docs/program_capture.md): the launch's arguments (`d_in + RADIUS`: 12 bytes into `d_in`) and the
// buffers it reaches before and after it; the after bytes are the stencil, computed here.
TEST(Programs, TheCaptureKeepsEachLaunchsArgumentsAndBuffersBeforeAndAfter) {
    cp::test::TempDir dir;
    const std::string capture = (dir.path() / "stencil.cpcap").string();
    const ProcessResult r = run_cli({"run", kPrograms + "/stencil_1d.cu", "--capture", capture});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string file = read_text(capture);
    const size_t first = file.find('\n'), second = file.find('\n', first + 1);
    ASSERT_NE(second, std::string::npos);
    EXPECT_EQ(file.substr(0, first), "CUDA-PLAYGROUND-CAPTURE 1");
    const Json j = Json::parse(file.substr(first + 1, second - first - 1));
    const std::string data = file.substr(second + 1);
    ASSERT_EQ(j.at("launches").size(), 1u);
    const Json& l = j.at("launches")[0];
    const int radius = 3, n = 128 * 40, total = n + 2 * radius;
    ASSERT_EQ(l.at("args").size(), 2u);
    EXPECT_EQ(l.at("args")[0].at("buffer"), "d_in");
    EXPECT_EQ(l.at("args")[0].at("offset"), radius * 4);
    EXPECT_EQ(l.at("args")[1].at("buffer"), "d_out");
    EXPECT_EQ(l.at("args")[1].at("offset"), radius * 4);
    ASSERT_EQ(l.at("buffers").size(), 2u);
    std::vector<int> in(total), before(total), after(total);
    for (const Json& b : l.at("buffers")) {
        ASSERT_TRUE(b.at("captured").get<bool>());
        ASSERT_EQ(b.at("bytes"), total * 4);
        ASSERT_LE(b.at("after_at").get<size_t>() + size_t(total) * 4, data.size());
        if (b.at("name") == "d_in") std::memcpy(in.data(), data.data() + b.at("before_at").get<size_t>(), total * 4);
        if (b.at("name") == "d_out") {
            std::memcpy(before.data(), data.data() + b.at("before_at").get<size_t>(), total * 4);
            std::memcpy(after.data(), data.data() + b.at("after_at").get<size_t>(), total * 4);
        }
    }
    for (int i = 0; i < total; ++i) {
        ASSERT_EQ(in[i], i % 10);
        ASSERT_EQ(before[i], i % 10);  // the program copied its input into d_out first
        int expect = in[i];
        if (i >= radius && i < n + radius) {
            expect = 0;
            for (int o = -radius; o <= radius; ++o) expect += in[i + o];
        }
        ASSERT_EQ(after[i], expect) << "element " << i;
    }
}

TEST(Programs, PastTheCaptureLimitLaunchesAreRecordedWithoutData) {
    cp::test::TempDir dir;
    const std::string capture = (dir.path() / "big.cpcap").string();
    const ProcessResult r = run_cli({"run", kPrograms + "/vector_add.cu", "--capture", capture, "--capture-limit", "1"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string file = read_text(capture);
    const size_t first = file.find('\n'), second = file.find('\n', first + 1);
    ASSERT_NE(second, std::string::npos);
    const Json j = Json::parse(file.substr(first + 1, second - first - 1));
    EXPECT_EQ(file.size(), second + 1);  // no data: each buffer is 4 MB, the limit 1 MiB
    ASSERT_EQ(j.at("launches").size(), 1u);
    ASSERT_EQ(j.at("launches")[0].at("buffers").size(), 3u);
    for (const Json& b : j.at("launches")[0].at("buffers")) {
        EXPECT_FALSE(b.at("captured").get<bool>());
        EXPECT_FALSE(b.contains("before_at"));
    }
}

TEST(Programs, ArgumentsAfterTheSeparatorAreTheProgramsOwn) {
    const int n = 12347;
    long long expect = 0;
    for (int i = 0; i < n; i++) expect += (i * 7) % 13 - 6;
    expect += 1000 - ((100 * 7) % 13 - 6);
    const Json j = run_json({kPrograms + "/reduce_two_launches.cu", "--", std::to_string(n)});
    EXPECT_EQ(j.at("stdout").get<std::string>(),
              "n = " + std::to_string(n) + ", sum = " + std::to_string(expect) + ", expected " +
                  std::to_string(expect) + "\nreduction correct!\n");
    EXPECT_EQ(j.at("exit_status"), 0);
}

// CUDA 13 on an H200 says cudaErrorInvalidValue for a block of 2048 threads (expected/bad_block.out): so does the
// playground's runtime.
TEST(Programs, ARefusedLaunchRunsNothingAndGivesCudasError) {
    const std::string file = kPrograms + "/bad_block.cu";
    const Json j = run_json({file});
    const Json& launches = j.at("launches");
    ASSERT_EQ(launches.size(), 2u);
    EXPECT_EQ(launches[0].at("block"), Json::array({2048, 1, 1}));
    EXPECT_EQ(launches[0].at("cuda_error"), 1);
    EXPECT_EQ(launches[0].at("error").at("kind"), "launch_refused");
    EXPECT_EQ(launches[0].at("line"), line_of(file, "fill<<<2, 2048>>>"));
    EXPECT_TRUE(launches[1].at("error").is_null());
}

// Kernels in the program's own header: a launch written there is named by the header and its line; the others by
// the program's lines.
TEST(Programs, ALaunchWrittenInTheProgramsHeaderIsNamedByTheHeader) {
    const std::string file = kPrograms + "/header_kernels.cu";
    const std::string header = kPrograms + "/header_kernels.cuh";
    const Json j = run_json({file});
    ASSERT_EQ(j.at("end"), "returned");
    const Json& launches = j.at("launches");
    ASSERT_EQ(launches.size(), 4u);
    EXPECT_EQ(launches[0].at("kernel"), "scale");
    EXPECT_EQ(launches[0].at("line"), line_of(file, "scale<<<(n + 255) / 256, 256>>>(d_in"));
    EXPECT_FALSE(launches[0].contains("file"));
    EXPECT_EQ(launches[1].at("kernel"), "block_sums");
    EXPECT_EQ(launches[1].at("file"), "header_kernels.cuh");
    EXPECT_EQ(launches[1].at("line"), line_of(header, "block_sums<<<"));
    EXPECT_EQ(launches[1].at("grid"), Json::array({(1000 + 127) / 128, 1, 1}));
    EXPECT_EQ(launches[3].at("kernel"), "fill");
    EXPECT_EQ(launches[3].at("line"), line_of(file, "fill<<<"));
    // The arguments as the kernel took them: 2.0f and 3.0 in the overloads' own types, a literal 0 as an int.
    auto hex = [](const void* p, size_t n) {
        std::string out;
        char b[3];
        for (size_t i = 0; i < n; ++i) {
            std::snprintf(b, sizeof b, "%02x", unsigned(static_cast<const unsigned char*>(p)[i]));
            out += b;
        }
        return out;
    };
    const float two = 2.0f;
    const double three = 3.0;
    EXPECT_EQ(launches[0].at("args")[1].at("bytes"), hex(&two, sizeof two));
    EXPECT_EQ(launches[2].at("args")[1].at("bytes"), hex(&three, sizeof three));
    EXPECT_EQ(launches[3].at("args")[1].at("size"), 4);
    EXPECT_EQ(launches[3].at("args")[1].at("bytes"), "00000000");
}

// A kernel in the program's header that writes past its buffer: stopped at the thread and element, and the line
// is the header's, named by the header (not a line of the program).
TEST(Programs, AFaultInAHeadersKernelIsPlacedInTheHeader) {
    cp::test::TempDir dir;
    const std::string header_text =
        "#pragma once\n"
        "__global__ void spill(float* out)\n"
        "{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    out[i] = 1.0f;\n"
        "}\n";
    const std::string program_text =
        "#include <cstdio>\n"
        "#include \"spill.cuh\"\n"
        "int main() {\n"
        "    float* d;\n"
        "    cudaMalloc(&d, 100 * sizeof(float));\n"
        "    spill<<<1, 128>>>(d);\n"
        "    printf(\"%s\\n\", cudaGetErrorString(cudaDeviceSynchronize()));\n"
        "    return 0;\n"
        "}\n";
    std::ofstream(dir.path() / "spill.cuh") << header_text;
    std::ofstream(dir.path() / "spill.cu") << program_text;
    const Json j = run_json({(dir.path() / "spill.cu").string()});
    ASSERT_EQ(j.at("launches").size(), 1u);
    const Json& e = j.at("launches")[0].at("error");
    ASSERT_TRUE(e.is_object()) << j.dump(1);
    EXPECT_EQ(e.at("kind"), "out_of_bounds");
    EXPECT_EQ(e.at("thread"), Json::array({100, 0, 0}));
    EXPECT_EQ(e.at("block"), Json::array({0, 0, 0}));
    EXPECT_EQ(e.at("line"), 0);  // no line of the program's file
    const std::string message = e.at("message").get<std::string>();
    EXPECT_NE(message.find("element 100 of 100"), std::string::npos) << message;
    EXPECT_NE(message.find("(spill.cuh:5)"), std::string::npos) << message;
    EXPECT_EQ(j.at("launches")[0].at("cuda_error"), 700);
    EXPECT_EQ(j.at("stdout"), "an illegal memory access was encountered\n");
}

// CPU backend: the fault is stopped at the thread, block, line and element; the program sees CUDA's error at its
// next wait for the device, and acts on it (its exit status).
TEST(Programs, AnOutOfBoundsKernelIsStoppedAndTheProgramSeesIllegalAddress) {
    const std::string file = kPrograms + "/out_of_bounds.cu";
    const Json j = run_json({file});
    ASSERT_EQ(j.at("launches").size(), 1u);
    const Json& e = j.at("launches")[0].at("error");
    ASSERT_TRUE(e.is_object());
    EXPECT_EQ(e.at("kind"), "out_of_bounds");
    // n = 1000 in blocks of 256: the first thread past the end is thread 1000 - 3 * 256 of block 3.
    EXPECT_EQ(e.at("thread"), Json::array({1000 - 3 * 256, 0, 0}));
    EXPECT_EQ(e.at("block"), Json::array({3, 0, 0}));
    EXPECT_EQ(e.at("line"), line_of(file, "out[i] = 2.0f * in[i];"));
    EXPECT_NE(e.at("message").get<std::string>().find("element 1000 of 1000"), std::string::npos);
    EXPECT_EQ(j.at("launches")[0].at("cuda_error"), 700);
    EXPECT_EQ(j.at("stdout"), "launch: no error\nsync: an illegal memory access was encountered\n");
    EXPECT_EQ(j.at("end"), "returned");
    EXPECT_EQ(j.at("exit_status"), 1);
}

TEST(Programs, AHostCrashIsReportedAtItsLineAfterWhatThePrintedBefore) {
    const std::string file = kPrograms + "/host_segfault.cu";
    const ProcessResult r = run_cli({"run", file});
    EXPECT_EQ(r.out, "before the crash\n");
    EXPECT_EQ(r.exit_code, 1);
    const Json j = run_json({file});
    EXPECT_EQ(j.at("end"), "crashed");
    EXPECT_EQ(j.at("error").at("kind"), "fault");
    EXPECT_EQ(j.at("error").at("line"), line_of(file, "table[n]"));
}

// Host code reading a cudaMalloc pointer, the copy back forgotten: on a GPU that address is not the host's and the
// program crashes (its nvcc build dies of SIGSEGV); the CPU backend, whose device memory is host memory, closes it to
// host code between launches, so the run crashes there too, at the line, naming the buffer.
TEST(Programs, HostCodeReadingDeviceMemoryCrashesAsOnAGpu) {
    const std::string file = kPrograms + "/host_reads_device.cu";
    const Json j = run_json({file});
    EXPECT_EQ(j.at("end"), "crashed");
    EXPECT_EQ(j.at("stdout"), "launched\n");
    EXPECT_EQ(j.at("error").at("kind"), "fault");
    EXPECT_EQ(j.at("error").at("name"), "HOST_READ_DEVICE_MEMORY");
    EXPECT_EQ(j.at("error").at("line"), line_of(file, "d_out[n - 1]"));
    EXPECT_NE(j.at("error").at("message").get<std::string>().find("d_out"), std::string::npos);
    // The kernel itself wrote it, and the runtime's own copies still reach it (every other program here passes).
    ASSERT_EQ(j.at("launches").size(), 1u);
    EXPECT_EQ(j.at("launches")[0].at("cuda_error"), 0);
}

// A grid-wide sync (cooperative launch) is the GPU's only: the CPU backend refuses it before anything runs, at the
// sync's line (tests/gpu/program_gpu_test.cpp runs it on the GPU as its nvcc build does).
TEST(Programs, AGridWideSyncIsRefusedOnTheCpuAtItsLine) {
    const std::string file = kPrograms + "/grid_sync.cu";
    const Json j = run_json({file});
    EXPECT_FALSE(j.at("compiled").get<bool>());
    EXPECT_EQ(j.at("end"), "not_run");
    EXPECT_EQ(j.at("stdout"), "");
    ASSERT_FALSE(j.at("diagnostics").empty());
    EXPECT_EQ(j.at("diagnostics")[0].at("line"), line_of(file, "grid.sync()"));
}

TEST(Programs, AnEndlessHostLoopIsStoppedByTheTimeLimit) {
    const Json j = run_json({kPrograms + "/host_loop.cu", "--time-limit", "2"});
    EXPECT_EQ(j.at("end"), "stopped");
    EXPECT_EQ(j.at("error").at("kind"), "hang");
    EXPECT_EQ(j.at("stdout"), "spinning\n");
    EXPECT_TRUE(j.at("launches").empty());
}

// A launch the watchdog stops is named, with its size and how long it would need here from the blocks that ran.
TEST(Programs, ALaunchTheTimeLimitStopsIsNamedWithTheTimeItWouldNeed) {
    const std::string file = kPrograms + "/slow_launch.cu";
    const Json j = run_json({file, "--time-limit", "3"});
    EXPECT_EQ(j.at("end"), "stopped");
    ASSERT_TRUE(j.at("error").is_object());
    EXPECT_EQ(j.at("error").at("kind"), "hang");
    EXPECT_EQ(j.at("error").at("line"), line_of(file, "busy<<<blocks"));
    const std::string m = j.at("error").at("message").get<std::string>();
    EXPECT_NE(m.find("`busy`"), std::string::npos) << m;
    EXPECT_NE(m.find("4096x1x1"), std::string::npos) << m;
    EXPECT_NE(m.find(std::to_string(4096 * 64) + " threads"), std::string::npos) << m;
    // "N of its 4096 blocks ran in S s: the whole launch would need about T s here", T well over the limit.
    const size_t at = m.find(" of its 4096 blocks ran in ");
    ASSERT_NE(at, std::string::npos) << m;
    const size_t about = m.find("about ", at);
    ASSERT_NE(about, std::string::npos) << m;
    EXPECT_GT(std::stod(m.substr(about + 6)), 3.0) << m;
}

TEST(Programs, ExitEndsTheProgramWithItsStatusAndItsOutputKept) {
    const std::string file = kPrograms + "/exit_status.cu";
    const Json j = run_json({file});
    EXPECT_EQ(j.at("end"), "exited");
    EXPECT_EQ(j.at("exit_status"), 3);
    EXPECT_EQ(j.at("stdout"), "copying too much\n");
    EXPECT_EQ(j.at("stderr").get<std::string>(),
              "CUDA error cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost) at line " +
                  std::to_string(line_of(file, "CHECK(cudaMemcpy(h, d")) + ": invalid argument\n");
}

// A call outside the runtime subset is refused at compile time, at its line, before anything runs.
TEST(Programs, CallsOutsideTheRuntimeSubsetAreRefusedAtTheirLine) {
    cp::test::TempDir dir;
    const std::string file = (dir.path() / "interop.cu").string();
    std::ofstream(file) << "#include <cstdio>\n"
                           "__global__ void k(float* p) { p[threadIdx.x] = 1; }\n"
                           "int main() {\n"
                           "    float* d;\n"
                           "    cudaMalloc(&d, 64);\n"
                           "    cudaGraphicsGLRegisterBuffer(0, 0, 0);\n"
                           "    k<<<1, 16>>>(d);\n"
                           "    printf(\"ran\\n\");\n"
                           "}\n";
    const Json j = run_json({file});
    EXPECT_FALSE(j.at("compiled").get<bool>());
    EXPECT_EQ(j.at("end"), "not_run");
    EXPECT_EQ(j.at("stdout"), "");
    ASSERT_FALSE(j.at("diagnostics").empty());
    EXPECT_EQ(j.at("diagnostics")[0].at("line"), 6);
    EXPECT_NE(j.at("diagnostics")[0].at("message").get<std::string>().find("cudaGraphicsGLRegisterBuffer"),
              std::string::npos);
    EXPECT_EQ(run_cli({"run", file}).exit_code, 1);
}

// Without an NVIDIA driver the CUDA backend cannot run programs: asked for, it is refused, as data, and nothing runs.
TEST(Programs, WithoutAGpuTheCudaBackendIsRefusedWithJson) {
    const Json j = run_json({kPrograms + "/vector_add.cu", "--backend", "cuda"});
    if (j.value("end", "") == "returned") GTEST_SKIP() << "this machine has a GPU (tests/gpu/program_gpu_test.cpp runs there)";
    EXPECT_EQ(j.at("end"), "not_run");
    EXPECT_EQ(j.at("error").at("kind"), "unsupported");
    EXPECT_EQ(j.at("stdout"), "");
    EXPECT_EQ(cli({"run", kPrograms + "/vector_add.cu", "--backend", "cuda"}).exit_code, 1);
}

TEST(Programs, OptionsOfAHeadersRunAreRefusedForAProgram) {
    const ProcessResult r = run_cli({"run", kPrograms + "/vector_add.cu", "--block", "128"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.out, "");
    const ProcessResult missing = run_cli({"run", kPrograms + "/vector_add.cu", "-I", kPrograms + "/no-such-folder"});
    EXPECT_EQ(missing.exit_code, 1);
    EXPECT_EQ(missing.out, "");
}

// A file with a header and a main(): the header wins, --as-program runs the main().
TEST(Programs, AHeaderWinsOverMainUnlessAsProgram) {
    cp::test::TempDir dir;
    const std::string file = (dir.path() / "both.cu").string();
    std::ofstream(file) << "/*@playground\n"
                           "title: Both\n"
                           "param n: int = 100\n"
                           "buffer out: int[n] out zeros\n"
                           "block: 64\n"
                           "grid: ceil(n / block.x)\n"
                           "*/\n"
                           "#include <cstdio>\n"
                           "__global__ void fill(int* out, int n) {\n"
                           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                           "    if (i < n) out[i] = i;\n"
                           "}\n"
                           "int main() {\n"
                           "    int* d;\n"
                           "    cudaMalloc(&d, 300 * sizeof(int));\n"
                           "    fill<<<5, 64>>>(d, 300);\n"
                           "    int h[300];\n"
                           "    cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);\n"
                           "    printf(\"h[299] = %d\\n\", h[299]);\n"
                           "    return 0;\n"
                           "}\n";
    const Json program = run_json({file, "--as-program"});
    EXPECT_EQ(program.at("stdout"), "h[299] = 299\n");
    const Json lesson = run_json({file, "--backend", "cpu"});
    EXPECT_FALSE(lesson.contains("launches")) << lesson.dump();  // the lesson's report, not a program's
    EXPECT_TRUE(lesson.contains("check")) << lesson.dump();
}

}  // namespace
