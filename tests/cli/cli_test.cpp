// End-to-end tests of the command line: list, info, compile, run, and every user mistake we promise a clear
// message for. They drive the real binary. Kernels run on the CPU backend here (no GPU in CI).
#include "core/engine/backend.h"
#include "core/session/memory_budget.h"
#include "cli_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include "test_paths.h"
#include "core/backends/registry.h"

using cp::test::cli;
using cp::test::ProcessResult;
using cp::test::TempDir;

namespace {

std::string kernel(const std::string& name) { return std::string(CP_SOURCE_DIR) + "/kernels/" + name + ".cu"; }

bool cuda_available() {
    static const bool available = cli({"info", "--json"}).out.find("\"default_backend\": \"cuda\"") != std::string::npos;
    return available;
}

uint32_t crc32(const unsigned char* data, size_t n, uint32_t crc = 0) {
    crc = ~crc;
    for (size_t i = 0; i < n; ++i) {
        crc ^= data[i];
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

// A PNG whose header claims width x height but holds no pixel data.
std::string png_header_only(uint32_t width, uint32_t height) {
    std::string s = "\x89PNG\r\n\x1a\n";
    auto be32 = [](uint32_t v) {
        return std::string{char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
    };
    std::string ihdr = "IHDR" + be32(width) + be32(height) + std::string("\x08\x06\x00\x00\x00", 5);
    s += be32(13) + ihdr + be32(crc32(reinterpret_cast<const unsigned char*>(ihdr.data()), ihdr.size()));
    return s;
}

}  // namespace

// ---- list / info / help -----------------------------------------------------------------------------------

TEST(Cli, ListShowsEveryLibraryKernelWithItsTitle) {
    auto r = cli({"list"});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    for (const char* expected : {"basics/vector_add", "Vector add", "basics/thread_ids", "image/grayscale",
                                 "RGB to grayscale", "image/box_blur", "Box blur"}) {
        EXPECT_NE(r.out.find(expected), std::string::npos) << expected << "\n" << r.out;
    }
    auto j = nlohmann::json::parse(cli({"list", "--json"}).out).at("kernels");
    EXPECT_GE(j.size(), 4u);
    for (const auto& k : j) EXPECT_TRUE(k["problems"].empty()) << k.dump();
}

TEST(Cli, InfoSaysWhichBackendsExist) {
    auto r = cli({"info"});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    EXPECT_NE(r.out.find("NVRTC 13"), std::string::npos) << r.out;
    // One section per backend of the registry, each with its description.
    EXPECT_NE(r.out.find("cuda backend:"), std::string::npos);
    EXPECT_NE(r.out.find("cpu backend: available"), std::string::npos) << r.out;
    for (const cp::BackendEntry& e : cp::backend_registry()) EXPECT_NE(r.out.find(e.description), std::string::npos) << e.name;
    if (!cuda_available()) {
        EXPECT_NE(r.out.find("cuda backend: not available"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("reason:"), std::string::npos) << r.out;
    }
    auto j = nlohmann::json::parse(cli({"info", "--json"}).out);
    EXPECT_EQ(j["cpu"]["max_threads_per_block"], 1024);
}

// The commands are read from the program's own `--help` (printed from its one list of commands, which main()
// also dispatches on), so a command added there is checked here without anyone editing this test.
TEST(Cli, EveryCommandHasHelp) {
    auto top = cli({"--help"});
    ASSERT_EQ(top.exit_code, 0) << top.both();
    std::vector<std::string> commands;
    // The usage block: "usage: cuda-playground [window options] ..." then "       cuda-playground NAME ...".
    const std::regex usage_line(R"(^(usage: |       )cuda-playground ([a-z][a-z-]*)( |$))");
    std::istringstream lines(top.out);
    for (std::string line; std::getline(lines, line);)
        if (std::smatch m; std::regex_search(line, m, usage_line)) commands.push_back(m[2]);
    ASSERT_FALSE(commands.empty()) << "no command found in --help:\n" << top.out;
    EXPECT_NE(std::find(commands.begin(), commands.end(), "run"), commands.end()) << top.out;
    for (const std::string& command : commands) {
        auto r = cli({command, "--help"});
        EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.both();
        EXPECT_NE(r.out.find("usage: cuda-playground " + command), std::string::npos) << command << "\n" << r.out;
    }
}

TEST(Cli, UnknownCommandAndOptionSuggestTheClosest) {
    auto r = cli({"rnu", "x.cu"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("did you mean `run`"), std::string::npos) << r.err;
    r = cli({"run", kernel("basics/vector_add"), "--blok", "256"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("did you mean `--block`"), std::string::npos) << r.err;
}

TEST(Cli, AMistypedKernelNameSuggestsTheLibraryKernelEverywhere) {
    for (const std::vector<std::string>& args : {std::vector<std::string>{"run", "image/boxblur"},
                                                  std::vector<std::string>{"compile", "image/boxblur"},
                                                  std::vector<std::string>{"run", "boxblur"}}) {
        auto r = cli(args);
        EXPECT_EQ(r.exit_code, 1) << args[0];
        EXPECT_NE(r.err.find("Did you mean `image/box_blur`?"), std::string::npos) << r.err;
    }
    // The window's --open stops before opening a window: exit 1 with the same message.
    auto r = cli({"--headless", "--open", "image/boxblur", "--frames", "1"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Did you mean `image/box_blur`?"), std::string::npos) << r.err;
    // Nothing close: no guess.
    r = cli({"run", "no_such_kernel_anywhere"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err.find("Did you mean"), std::string::npos) << r.err;
}

TEST(Cli, HelpListsTheWindowOptions) {
    auto r = cli({"--help"});
    for (const char* option : {"--size", "--text-size", "--present", "--open", "--headless"})
        EXPECT_NE(r.out.find(option), std::string::npos) << option;
}

// A size no driver can draw is refused as a size, before any OpenGL context is tried (not "install Mesa").
TEST(Cli, AHugeWindowSizeIsRefusedAsASize) {
    auto r = cli({"--headless", "--size", "100000x100000", "--frames", "1"});
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_NE(r.err.find("`--size 100000x100000`: at most 16384 pixels on each side"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("Mesa"), std::string::npos) << r.err;
    r = cli({"--headless", "--size", "16385x1080", "--frames", "1"});
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_NE(r.err.find("at most 16384"), std::string::npos) << r.err;
}

// Sizes and rates of three digits or more print as numbers, never as "1e+02" (104 MB copied each way here).
TEST(Cli, LargeFiguresPrintWithoutExponents) {
    auto r = cli({"run", "memory/round_trip", "--backend", "cpu", "--set", "n=13000001", "--repeat", "1"});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    EXPECT_NE(r.out.find("104.00 MB"), std::string::npos) << r.out;
    EXPECT_FALSE(std::regex_search(r.out, std::regex(R"([0-9]e\+[0-9])"))) << r.out;
}

TEST(Cli, ABlockWithAStarIsRefusedWithTheReason) {
    auto r = cli({"run", kernel("basics/thread_ids"), "--block", "16*16", "--backend", "cpu"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("could mean a product"), std::string::npos) << r.err;
}

// ---- compile ------------------------------------------------------------------------------------------------

TEST(Cli, CompileReportsResourceUsage) {
    auto r = cli({"compile", kernel("image/box_blur")});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(registers:\s+[1-9][0-9]* per thread)"))) << r.out;
    auto j = nlohmann::json::parse(cli({"compile", kernel("image/box_blur"), "--json"}).out);
    EXPECT_TRUE(j["ok"].get<bool>());
    EXPECT_GT(j["resources"]["registers"].get<int>(), 0);
}

TEST(Cli, CompileSyntaxErrorGivesLineAndColumn) {
    TempDir dir;
    // Line 3, the undeclared `y` at column 12.
    auto file = dir.write("broken.cu",
                          "extern \"C\" __global__ void k(float* a)\n"
                          "{\n"
                          "    a[0] = y;\n"
                          "}\n");
    auto r = cli({"compile", file.string()});
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_NE(r.err.find("broken.cu:3:12: error:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("\"y\""), std::string::npos) << r.err;
}

TEST(Cli, CompileWorksOnPlainFilesWithoutMetadata) {
    TempDir dir;
    auto file = dir.write("plain.cu", "__global__ void scale(float* v, float s, int n)\n"
                                      "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) v[i] *= s; }\n");
    auto r = cli({"compile", file.string()});
    EXPECT_EQ(r.exit_code, 0) << r.both();
    EXPECT_NE(r.out.find("registers:"), std::string::npos);
}

// Kernels that include <cooperative_groups.h> or <cuda/std/...> compile through `compile` and report their resources;
// really compiled (no cache), and without a precompiled header: nothing is left in $TMPDIR (no PCH folder).
TEST(Cli, CompileHeavyIncludesReportsResourcesAndLeavesNoPchFolder) {
    TempDir dir, tmp;
    const auto cg = dir.write("cg_sum.cu",
                              "#include <cooperative_groups.h>\n"
                              "namespace cg = cooperative_groups;\n"
                              "extern \"C\" __global__ void cg_sum(const float* in, float* out, int n)\n"
                              "{\n"
                              "    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());\n"
                              "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                              "    float v = i < n ? in[i] : 0.0f;\n"
                              "    for (int o = 16; o > 0; o /= 2) v += warp.shfl_down(v, o);\n"
                              "    if (warp.thread_rank() == 0) atomicAdd(out, v);\n"
                              "}\n");
    const auto std_span = dir.write("std_span.cu",
                                    "#include <cuda/std/span>\n"
                                    "extern \"C\" __global__ void halve(float* data, int n)\n"
                                    "{\n"
                                    "    cuda::std::span<float> s(data, n);\n"
                                    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                    "    if (i < int(s.size())) s[i] /= 2;\n"
                                    "}\n");
    for (const auto& [file, kernel] : {std::pair{cg, "cg_sum"}, std::pair{std_span, "halve"}}) {
        auto r = cli({"compile", file.string(), "--json"},
                     {"CUDA_PLAYGROUND_NO_CACHE=1", "TMPDIR=" + tmp.path().string()});
        ASSERT_EQ(r.exit_code, 0) << r.both();
        auto j = nlohmann::json::parse(r.out);
        EXPECT_TRUE(j["ok"].get<bool>()) << r.out;
        EXPECT_FALSE(j["cache_hit"].get<bool>()) << r.out;
        EXPECT_EQ(j["kernel"], kernel);
        EXPECT_GT(j["resources"]["registers"].get<int>(), 0) << r.out;
        EXPECT_EQ(j["resources"]["spill_store_bytes"].get<int>(), 0) << r.out;
        EXPECT_TRUE(j["diagnostics"].empty()) << r.out;
    }
    std::vector<std::string> left;
    for (const auto& e : std::filesystem::directory_iterator(tmp.path())) left.push_back(e.path().filename().string());
    EXPECT_TRUE(left.empty()) << "left in $TMPDIR: " << (left.empty() ? "" : left.front());
}

// A process that checked device code with NVRTC removes its precompiled-header folder as it exits (each held up
// to ~100 MB, and every run used to leave one in /tmp).
TEST(Cli, RunLeavesNoPchFolder) {
    TempDir tmp;
    auto r = cli({"run", kernel("image/box_blur"), "--backend", "cpu", "--no-verify"},
                 {"CUDA_PLAYGROUND_NO_CACHE=1", "TMPDIR=" + tmp.path().string()});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    for (const auto& e : std::filesystem::directory_iterator(tmp.path()))
        EXPECT_NE(e.path().filename().string().rfind("cuda-playground-pch-", 0), 0u) << e.path();
}

TEST(Cli, MetadataBufferMissingFromSignatureNamesBoth) {
    TempDir dir;
    auto file = dir.write("mismatch.cu",
                          "/*@playground\n"
                          "title: Mismatch\n"
                          "param n: int = 100\n"
                          "buffer input: float[n] in zeros\n"
                          "buffer output: float[n] out\n"
                          "block: 128\n"
                          "grid: ceil(n / block.x)\n"
                          "*/\n"
                          "extern \"C\" __global__ void copy(const float* input, float* result, int n)\n"
                          "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) result[i] = input[i]; }\n");
    for (const char* command : {"compile", "run"}) {
        auto r = cli({command, file.string()});
        EXPECT_EQ(r.exit_code, 1) << command << "\n" << r.both();
        EXPECT_NE(r.both().find("output"), std::string::npos) << r.both();
        EXPECT_NE(r.both().find("copy"), std::string::npos) << r.both();
        EXPECT_NE(r.both().find("mismatch.cu:5"), std::string::npos) << r.both();
    }
}

// ---- run: the library ----------------------------------------------------------------------------------------

// Every lesson verifying (or failing as its `expect:` says) is course_test.cpp's CourseLesson, one test per lesson.

// A lesson is one file: copied alone into an empty folder it runs and checks itself with its own reference;
// a wrong reference makes the check fail; a reference that crashes or never ends is reported with its line.
TEST(Cli, ALessonFileAloneInAnEmptyFolderVerifiesWithItsOwnReference) {
    TempDir alone;
    const std::string lesson = cp::test::read_file(kernel("basics/vector_add"));
    auto write = [&](const std::string& name, const std::string& from, const std::string& to) {
        std::string text = lesson;
        const size_t at = text.rfind(from);  // the last occurrence: the reference, not the kernel
        EXPECT_NE(at, std::string::npos) << from;
        if (at != std::string::npos && !from.empty()) text.replace(at, from.size(), to);
        std::ofstream(alone.path() / name) << text;
        return (alone.path() / name).string();
    };
    const std::string sum = "c[i] = a[i] + b[i];";
    auto r = cli({"run", write("vector_add.cu", "", ""), "--backend", "cpu", "--set", "n=1001", "--json", "-"});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    EXPECT_EQ(nlohmann::json::parse(r.out)["verified"], true);

    r = cli({"run", write("wrong.cu", sum, "c[i] = a[i] + b[i] + (i == 7);"), "--backend", "cpu", "--set", "n=1001"});
    EXPECT_EQ(r.exit_code, 2) << r.both();
    EXPECT_NE(r.out.find("c[7] = "), std::string::npos) << r.out;

    const int reference_line = 32;  // the reference's loop in vector_add.cu
    r = cli({"run", write("crash.cu", sum, "c[i + (1 << 28)] = a[i];"), "--backend", "cpu", "--set", "n=1001"});
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_NE(r.err.find("the CPU reference `vector_add_reference` failed: it wrote to an address it may not"),
              std::string::npos) << r.err;
    EXPECT_NE(r.err.find("(line " + std::to_string(reference_line) + ")"), std::string::npos) << r.err;

    const auto hang_file = write("hang.cu", sum, "while (n) c[i] = a[i];");
    r = cp::test::run_process({CP_BINARY, "run", hang_file, "--backend", "cpu", "--set", "n=1001"},
                              {"CUDA_PLAYGROUND_CACHE_DIR=" + cp::test::cli_cache_dir().path().string(), "CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S=2"});
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_NE(r.err.find("did not finish within 2 s"), std::string::npos) << r.err;
}

// The CPU backend catches a read or a write one element past the end for sizes that are not multiples of
// 16 bytes (these passed silently, or were found after the launch without thread or line).
TEST(Cli, OneElementPastTheEndIsCaughtWithThreadLineAndElementOnTheCpuBackend) {
    TempDir dir;
    const std::string lesson = cp::test::read_file(kernel("basics/vector_add"));
    const std::string body = "c[i] = a[i] + b[i];";
    const size_t at = lesson.find(body);
    ASSERT_NE(at, std::string::npos);
    const long line = 1 + std::count(lesson.begin(), lesson.begin() + long(at), '\n');
    struct Case {
        std::string body, words;  // the words before ": element N of N"
    };
    for (const Case& c : {Case{"c[i] = a[i + 1] + b[i];", "read past the end of buffer `a`"},
                          Case{"c[i + 1] = a[i] + b[i];", "wrote past the end of buffer `c`"}}) {
        std::string text = lesson;
        text.replace(at, body.size(), c.body);
        const auto file = dir.path() / "shift.cu";
        std::ofstream(file) << text;
        for (const int n : {1001, 999, 1002, 100003}) {
            auto r = cli({"run", file.string(), "--backend", "cpu", "--set", "n=" + std::to_string(n), "--repeat", "1"});
            EXPECT_EQ(r.exit_code, 1) << r.both();
            const int last = n - 1;  // the thread that goes one past the end
            const std::string expected = "thread (" + std::to_string(last % 256) + ",0,0) of block (" +
                                         std::to_string(last / 256) + ",0,0) " + c.words + ": element " +
                                         std::to_string(n) + " of " + std::to_string(n) + " (line " +
                                         std::to_string(line) + ")";
            EXPECT_NE(r.err.find(expected), std::string::npos) << expected << "\n" << r.err;
        }
    }
}

// A buggy-on-purpose lesson passes when its bug shows as `expect:` says, and fails when it stops showing.
TEST(Cli, ExpectedOutcomesPassWhenTheBugShowsAndFailWhenItDoesNot) {
    TempDir dir;
    const std::string lesson = cp::test::read_file(kernel("basics/vector_add"));
    auto variant = [&](const std::string& name, const std::string& header_lines,
                       std::vector<std::pair<std::string, std::string>> edits) {
        std::string text = lesson;
        text.replace(text.find("reference: "), 0, header_lines);
        for (const auto& [from, to] : edits) {
            const size_t at = text.find(from);
            EXPECT_NE(at, std::string::npos) << from;
            if (at != std::string::npos) text.replace(at, from.size(), to);
        }
        std::ofstream(dir.path() / name) << text;
        return (dir.path() / name).string();
    };
    auto run_json = [&](const std::string& file, std::vector<std::string> env = {}) {
        env.push_back("CUDA_PLAYGROUND_CACHE_DIR=" + cp::test::cli_cache_dir().path().string());
        auto r =
            cp::test::run_process({CP_BINARY, "run", file, "--backend", "cpu", "--set", "n=1000", "--json", "-"}, env);
        return std::make_pair(r, r.out.empty() ? nlohmann::json() : nlohmann::json::parse(r.out));
    };
    const std::string learn = "expect: mismatch\nlearn: the last element is never written\n";
    // Mismatch: an off-by-one guard leaves c[999] at zero.
    auto [r, j] = run_json(variant("off_by_one.cu", learn, {{"if (i < n) {", "if (i < n - 1) {"}}));
    EXPECT_EQ(r.exit_code, 0) << r.both();
    EXPECT_EQ(j["expect"], "mismatch");
    EXPECT_EQ(j["outcome"], "mismatch");
    EXPECT_EQ(j["as_expected"], true);
    EXPECT_EQ(j["learn"], "the last element is never written");
    EXPECT_EQ(j["verified"], false);
    // The same lesson with the bug fixed no longer fails as it says: the check fails.
    std::tie(r, j) = run_json(variant("fixed.cu", learn, {}));
    EXPECT_EQ(r.exit_code, 2) << r.both();
    EXPECT_EQ(j["outcome"], "verified");
    EXPECT_EQ(j["as_expected"], false);
    auto text = cp::test::run_process({CP_BINARY, "run", (dir.path() / "fixed.cu").string(), "--backend", "cpu"},
                                      {"CUDA_PLAYGROUND_CACHE_DIR=" + cp::test::cli_cache_dir().path().string()});
    EXPECT_EQ(text.exit_code, 2);
    EXPECT_NE(text.out.find("lesson:   Buggy on purpose: it must fail with a mismatch, but the outcome was: verified"),
              std::string::npos)
        << text.out;

    // Fault: no bounds check, 1000 elements in blocks of 256.
    std::tie(r, j) = run_json(
        variant("no_guard.cu", "expect: fault\nlearn: threads past n write out of bounds\n", {{"if (i < n) {", "{"}}));
    EXPECT_EQ(r.exit_code, 0) << r.both();
    EXPECT_EQ(j["outcome"], "fault");
    EXPECT_EQ(j["error_kind"], "out_of_bounds");
    EXPECT_EQ(j["as_expected"], true);
    std::tie(r, j) = run_json(variant("guarded.cu", "expect: fault\nlearn: x\n", {}));
    EXPECT_EQ(r.exit_code, 2) << r.both();

    // Refused: a block of 2048 threads.
    std::tie(r, j) = run_json(variant("big_block.cu", "expect: refused\nlearn: at most 1024 threads a block\n",
                                      {{"block: 256", "block: 2048"}}));
    EXPECT_EQ(r.exit_code, 0) << r.both();
    EXPECT_EQ(j["outcome"], "refused");
    EXPECT_EQ(j["error_kind"], "launch_refused");
    // Hang: a loop that never ends, stopped by the watchdog.
    std::tie(r, j) = run_json(variant("spin.cu", "expect: hang\nlearn: the loop never ends\n",
                                      {{"c[i] = a[i] + b[i];", "for (volatile int spin = 1; spin;) c[i] = a[i];"}}),
                              {"CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S=2"});
    EXPECT_EQ(r.exit_code, 0) << r.both();
    EXPECT_EQ(j["outcome"], "hang");
    EXPECT_EQ(j["error_kind"], "hang");
    std::tie(r, j) = run_json(variant("no_hang.cu", "expect: hang\nlearn: x\n", {}));
    EXPECT_EQ(r.exit_code, 2) << r.both();
    EXPECT_EQ(j["as_expected"], false);

    // Header mistakes name their line.
    auto bad = cli({"run", variant("bad.cu", "expect: crash\n", {}), "--backend", "cpu"});
    EXPECT_EQ(bad.exit_code, 1);
    EXPECT_NE(bad.err.find("bad.cu:17:"), std::string::npos) << bad.err;
    EXPECT_NE(bad.err.find("one of mismatch, fault, refused, hang, undefined, not `crash`"), std::string::npos) << bad.err;
}

// A file with several kernels runs the one `kernel:` names; without `kernel:` it says how to choose.
TEST(Cli, KernelLinePicksOneOfSeveralKernels) {
    TempDir dir;
    std::string text = cp::test::read_file(kernel("basics/vector_add"));
    const std::string twice =
        "\nextern \"C\" __global__ void vector_sub(const float* a, const float* b, float* c, int n)\n"
        "{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) c[i] = a[i] - b[i];\n}\n";
    text.insert(text.find("#ifdef PLAYGROUND_REFERENCE"), twice);
    std::ofstream(dir.path() / "two.cu") << text;
    auto r = cli({"run", (dir.path() / "two.cu").string(), "--backend", "cpu", "--set", "n=999"});
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_NE(r.err.find("say which one runs with a header line such as `kernel: vector_add`"), std::string::npos)
        << r.err;

    text.replace(text.find("reference: "), 0, "kernel: vector_sub\n");
    std::ofstream(dir.path() / "sub.cu") << text;
    r = cli({"run", (dir.path() / "sub.cu").string(), "--backend", "cpu", "--set", "n=999", "--json", "-"});
    EXPECT_EQ(r.exit_code, 2) << r.both();  // vector_sub ran and differs from the sum the reference computes
    EXPECT_EQ(nlohmann::json::parse(r.out)["kernel"], "vector_sub");

    std::string typo = text;
    typo.replace(typo.find("kernel: vector_sub"), 18, "kernel: vector_sbu");
    std::ofstream(dir.path() / "typo.cu") << typo;
    r = cli({"run", (dir.path() / "typo.cu").string(), "--backend", "cpu"});
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_NE(r.err.find("`kernel: vector_sbu` names no `__global__` function"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Did you mean `vector_sub`?"), std::string::npos) << r.err;
}

// `--compare`: a variant (another kernel of the file, or another file) on the same inputs, both checked.
TEST(Cli, CompareRunsBothOnTheSameInputsChecksEachAndPrintsTheSpeedUp) {
    TempDir dir;
    std::string text = cp::test::read_file(kernel("basics/vector_add"));
    // Two elements per thread, the second half-way along: the same sums by another route.
    const std::string halves =
        "\nextern \"C\" __global__ void vector_add_halves(const float* a, const float* b, float* c, int n)\n"
        "{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    int half = (n + 1) / 2;\n"
        "    if (i < half) c[i] = a[i] + b[i];\n    if (i + half < n) c[i + half] = a[i + half] + b[i + half];\n}\n";
    text.insert(text.find("#ifdef PLAYGROUND_REFERENCE"), halves);
    text.replace(text.find("reference: "), 0, "kernel: vector_add\n");
    std::ofstream(dir.path() / "pair.cu") << text;
    const std::string file = (dir.path() / "pair.cu").string();

    auto r = cli({"run", file, "--backend", "cpu", "--set", "n=1001", "--repeat", "2", "--compare", "vector_add_halves",
                  "--json", "-"});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["kernel"], "vector_add");
    EXPECT_EQ(j["verified"], true);
    EXPECT_EQ(j["compare"]["kernel"], "vector_add_halves");
    EXPECT_EQ(j["compare"]["verified"], true);
    EXPECT_EQ(j["compare"]["params"]["n"], 1001);
    ASSERT_TRUE(j["speedup"].is_number());
    EXPECT_NEAR(j["speedup"].get<double>(),
                j["timing"]["median_ms"].get<double>() / j["compare"]["timing"]["median_ms"].get<double>(), 1e-9);

    r = cli({"run", file, "--backend", "cpu", "--set", "n=1001", "--compare", "vector_add_halves"});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    EXPECT_NE(r.out.find("compared with vector_add_halves:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("speed-up: vector_add_halves takes"), std::string::npos) << r.out;

    // A wrong variant fails the check (exit 2) even when the main kernel verifies; another file works too.
    std::string broken = text;
    broken.replace(broken.find("if (i + half < n)"), 17, "if (i + half < n - 1)");
    std::ofstream(dir.path() / "broken.cu") << broken;
    r = cli({"run", (dir.path() / "broken.cu").string(), "--backend", "cpu", "--set", "n=1001", "--compare",
             "vector_add_halves"});
    EXPECT_EQ(r.exit_code, 2) << r.both();
    r = cli({"run", "basics/vector_add", "--backend", "cpu", "--set", "n=1001", "--compare", file, "--json", "-"});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    EXPECT_EQ(nlohmann::json::parse(r.out)["compare"]["kernel"], "vector_add");
    r = cli({"run", file, "--backend", "cpu", "--compare", "nothing_here"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("vector_add, vector_add_halves"), std::string::npos) << r.err;
}

TEST(Cli, RunWritesViewsAndTheJsonResult) {
    TempDir out;
    const auto json_path = out.path() / "result.json";
    auto r = cli({"run", "image/box_blur", "--backend", "cpu", "--block", "8x8", "--repeat", "2", "--out-dir",
                  out.path().string(), "--json", json_path.string()});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    auto j = nlohmann::json::parse(cp::test::read_file(json_path));
    for (const char* key : {"kernel", "backend", "device", "grid", "block", "verified", "max_abs_error", "mismatches",
                            "timing", "bandwidth_gbps", "printf", "diagnostics", "error"}) {
        EXPECT_TRUE(j.contains(key)) << key;
    }
    EXPECT_EQ(j["kernel"], "box_blur");
    EXPECT_EQ(j["block"], nlohmann::json::array({8, 8, 1}));
    // coffee.png is 600x400: ceil(600/8) x ceil(400/8).
    EXPECT_EQ(j["grid"], nlohmann::json::array({75, 50, 1}));
    EXPECT_EQ(j["timing"]["repeats"], 2);
    EXPECT_TRUE(j["timing"]["measured_by"].get<std::string>().find("cpu") != std::string::npos);
    const std::string png = cp::test::read_file(out.path() / "dst.png");
    ASSERT_GT(png.size(), 24u);
    EXPECT_EQ(png.substr(1, 3), "PNG");
    auto be32 = [&](size_t at) {
        return (uint32_t(uint8_t(png[at])) << 24) | (uint32_t(uint8_t(png[at + 1])) << 16) |
               (uint32_t(uint8_t(png[at + 2])) << 8) | uint32_t(uint8_t(png[at + 3]));
    };
    EXPECT_EQ(be32(16), 600u);
    EXPECT_EQ(be32(20), 400u);
}

// `--json -` with `--out-dir`: stdout is the JSON alone (the files written are its `outputs`, not lines after it).
TEST(Cli, RunJsonOnStdoutWithAnOutDirIsOnlyTheJson) {
    TempDir out;
    auto r = cli({"run", "basics/vector_add", "--backend", "cpu", "--set", "n=1001", "--repeat", "1", "--out-dir",
                  out.path().string(), "--json", "-"});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    nlohmann::json j;
    ASSERT_NO_THROW(j = nlohmann::json::parse(r.out)) << r.out;
    EXPECT_EQ(j.at("outputs"), nlohmann::json::array({(out.path() / "c.csv").string()})) << r.out;
    EXPECT_TRUE(std::filesystem::exists(out.path() / "c.csv"));
}

TEST(Cli, RunPlotViewWritesCsv) {
    TempDir out;
    auto r = cli({"run", "basics/vector_add", "--backend", "cpu", "--set", "n=1001", "--repeat", "1", "--out-dir",
                  out.path().string()});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    const std::string csv = cp::test::read_file(out.path() / "c.csv");
    EXPECT_EQ(csv.rfind("index,value\n", 0), 0u);
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1002);
}

// ---- run: launch configuration -------------------------------------------------------------------------------

TEST(Cli, BlockTooLargeIsRefusedWithASuggestion) {
    auto r = cli({"run", "basics/vector_add", "--backend", "cpu", "--block", "2000"});
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_NE(r.err.find("block 2000x1x1 has 2000 threads"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("at most 1024 per block"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Try 256x1x1"), std::string::npos) << r.err;
}

TEST(Cli, GridTooSmallWarnsAndTheCheckFails) {
    const int n = 1000, block = 128, grid = 3;
    const int covered = grid * block, needed = (n + block - 1) / block;  // elements covered..n-1 never written
    auto r = cli({"run", "basics/vector_add", "--backend", "cpu", "--set", "n=" + std::to_string(n), "--block",
                  std::to_string(block), "--grid", std::to_string(grid), "--repeat", "1"});
    EXPECT_EQ(r.exit_code, 2) << r.both();
    const std::string warning = "covers " + std::to_string(covered) + " of " + std::to_string(n) + " elements";
    EXPECT_NE(r.out.find("warning:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(warning), std::string::npos) << warning << "\n" << r.out;
    EXPECT_NE(r.out.find("ceil(" + std::to_string(n) + "/" + std::to_string(block) + ") = " + std::to_string(needed)),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("check:    Differs from the CPU reference"), std::string::npos) << r.out;
    // The first mismatch is the first element no thread reached.
    EXPECT_NE(r.out.find("c[" + std::to_string(covered) + "] = 0, expected"), std::string::npos) << r.out;
}

TEST(Cli, RunOnCudaWithoutADeviceSaysSo) {
    if (cuda_available()) GTEST_SKIP() << "a CUDA device is present; this checks the no-GPU message";
    auto r = cli({"run", "basics/vector_add", "--backend", "cuda"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("the CUDA backend is unavailable"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--backend cpu"), std::string::npos) << r.err;
}

// ---- run: bad inputs ---------------------------------------------------------------------------------------------

TEST(Cli, MissingFile) {
    auto r = cli({"run", "/nonexistent/kernel.cu"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("/nonexistent/kernel.cu"), std::string::npos) << r.err;
}

TEST(Cli, FileWithoutMetadataCannotRunButSaysWhy) {
    TempDir dir;
    auto file = dir.write("plain.cu", "__global__ void k(float* a) { a[threadIdx.x] = 1; }\n");
    auto r = cli({"run", file.string(), "--backend", "cpu"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("metadata header"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("compile"), std::string::npos) << r.err;
    // ... and the command that writes the header.
    EXPECT_NE(r.err.find("`cuda-playground describe " + file.string() + "` writes one"), std::string::npos) << r.err;
}

TEST(Cli, MetadataErrorsNameTheLine) {
    TempDir dir;
    auto file = dir.write("bad.cu",
                          "/*@playground\n"
                          "title: Bad\n"
                          "param n: integer = 10\n"
                          "buffer a: float[n] out\n"
                          "block: 64\n"
                          "grid: ceil(n / block.x)\n"
                          "*/\n"
                          "extern \"C\" __global__ void k(float* a, int n) { }\n");
    auto r = cli({"run", file.string(), "--backend", "cpu"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("bad.cu:3"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("integer"), std::string::npos) << r.err;
}

TEST(Cli, BadImagesAreClearErrors) {
    TempDir dir;
    const std::string coffee = cp::test::read_file(std::string(CP_SOURCE_DIR) + "/assets/coffee.png");
    struct Case {
        std::string name, content, expect;
    };
    const std::vector<Case> cases = {
        {"empty.png", "", "empty"},
        {"truncated.png", coffee.substr(0, coffee.size() / 3), "truncated.png"},
        {"corrupt.png", std::string(4096, '\x5a'), "corrupt.png"},
        {"huge.png", png_header_only(100000, 100000), "100000x100000"},
    };
    for (const auto& c : cases) {
        auto path = dir.write(c.name, c.content);
        auto r = cli({"run", "image/grayscale", "--backend", "cpu", "--set", "src=" + path.string()});
        EXPECT_EQ(r.exit_code, 1) << c.name << "\n" << r.both();
        EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.name << "\n" << r.err;
        EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    }
    auto r = cli({"run", "image/grayscale", "--backend", "cpu", "--set", "src=" + (dir.path() / "nope.png").string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("nope.png"), std::string::npos) << r.err;
}

TEST(Cli, UnknownSetNameListsTheParameters) {
    auto r = cli({"run", "basics/vector_add", "--backend", "cpu", "--set", "size=10"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("unknown parameter `size`"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("its parameters are: n\n"), std::string::npos) << r.err;
}

TEST(Cli, OutOfRangeAndMalformedValuesAreRefused) {
    auto r = cli({"run", "basics/vector_add", "--backend", "cpu", "--set", "n=0"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("out of range"), std::string::npos) << r.err;
    r = cli({"run", "basics/vector_add", "--backend", "cpu", "--set", "n=lots"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("not a valid value"), std::string::npos) << r.err;
    r = cli({"run", "basics/vector_add", "--backend", "cpu", "--set", "n=10.5"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("integer"), std::string::npos) << r.err;
    r = cli({"run", "image/box_blur", "--backend", "cpu", "--set", "width=10"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("derived"), std::string::npos) << r.err;
    r = cli({"run", "basics/vector_add", "--backend", "cpu", "--block", "16y16"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--block"), std::string::npos) << r.err;
}

// A size beyond memory is refused before anything is allocated, with both figures (issue 10): a header
// without a range, and sizes whose byte counts would overflow.
TEST(Cli, SizesBeyondMemoryAreRefusedNotAnInternalError) {
    TempDir dir;
    const auto file = dir.path() / "big.cu";
    std::ofstream(file) << "/*@playground\ntitle: Big\nparam n: int = 1000\nbuffer a: float[n] in zeros\n"
                           "buffer b: float[n * 64] out zeros\nblock: 256\ngrid: ceil(n / block.x)\n*/\n"
                           "extern \"C\" __global__ void big(const float* a, float* b, int n) {\n"
                           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) b[i] = a[i];\n}\n";
    for (const char* n : {"n=2000000000", "n=2147483647", "n=400000000"}) {
        auto r = cli({"run", file.string(), "--backend", "cpu", "--set", n});
        EXPECT_EQ(r.exit_code, 1) << n << ": " << r.err;
        EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("memory"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("GiB"), std::string::npos) << r.err;
    }
    // Half the free memory in buffers fits the machine but not the host copies: the host check refuses it.
    const uint64_t half_free_n = cp::free_host_memory() / 2 / (65 * 4);
    if (half_free_n > 0 && half_free_n < 2147483647ull) {
        auto r = cli({"run", file.string(), "--backend", "cpu", "--set", "n=" + std::to_string(half_free_n)});
        EXPECT_EQ(r.exit_code, 1) << r.err;
        EXPECT_NE(r.err.find("of host memory but only"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("smaller n"), std::string::npos) << r.err;
    }
    auto r = cli({"run", file.string(), "--backend", "cpu", "--set", "n=3000000000"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("does not fit the kernel's `int`"), std::string::npos) << r.err;
    r = cli({"run", file.string(), "--backend", "cpu", "--set", "n=1000"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(Cli, SanitizeRefusesUnknownToolsAndTheCpuBackendPlainly) {
    auto r = cli({"run", "basics/vector_add", "--sanitize", "leakcheck"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--sanitize takes memcheck, racecheck, synccheck or initcheck, not `leakcheck`"),
              std::string::npos) << r.err;
    r = cli({"run", "basics/vector_add", "--backend", "cpu", "--sanitize", "memcheck"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("needs the CUDA backend"), std::string::npos) << r.err;
    // No toolkit sanitizer at the given path: said plainly, nothing run.
    r = cp::test::run_process({CP_BINARY, "run", "basics/vector_add", "--sanitize", "memcheck"},
                              {"CUDA_PLAYGROUND_COMPUTE_SANITIZER=/nonexistent/compute-sanitizer"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("compute-sanitizer was not found"), std::string::npos) << r.err;
}

TEST(Cli, BinaryDoesNotNeedTheNvidiaDriverToStart) {
    // The driver is loaded at run time; a DT_NEEDED entry for libcuda would stop the binary from starting on
    // a machine without one.
    if (!std::filesystem::exists("/usr/bin/readelf")) GTEST_SKIP() << "readelf (binutils) is not installed";
    auto r = cp::test::run_process({"/usr/bin/readelf", "-d", CP_BINARY});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    EXPECT_NE(r.out.find("(NEEDED)"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("libcuda.so"), std::string::npos) << r.out;
}
