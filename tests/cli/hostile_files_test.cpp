// Kernel files are untrusted input: the hostile files in tests/data/hostile (see its README) run on the CPU
// backend and compile with NVRTC through the real binary; each must have no effect (checked: the file it
// would create, the connection it would open, the secret it would read) and the message must name what was
// refused. The app's HOME is a temporary folder holding the planted secret.
#include "support/hostile_files.h"
#include "support/process.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <random>
#include "test_paths.h"

using cp::test::Hostile;
using cp::test::ProcessResult;
using cp::test::TempDir;
namespace fs = std::filesystem;

namespace {

bool contains(const ProcessResult& r, const std::string& words) {
    return r.both().find(words) != std::string::npos;
}

}  // namespace

TEST(HostileFiles, StartingAProgramIsRefusedWithThreadBlockAndLine) {
    Hostile h("start_program.cu");
    const ProcessResult r = h.run_cpu();
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_TRUE(contains(r, "kernel `start_program`")) << r.both();
    EXPECT_TRUE(contains(r, "thread (3,0,0) of block (1,0,0) tried to start a program")) << r.both();
    EXPECT_TRUE(contains(r, "(line 14)")) << r.both();
    EXPECT_TRUE(contains(r, "kernels can only compute")) << r.both();
    EXPECT_FALSE(h.exists("started")) << "the program ran";
    h.expect_json_error("tried to start a program");
}

TEST(HostileFiles, ReplacingItselfWithAProgramIsRefused) {
    Hostile h("exec_program.cu");
    const ProcessResult r = h.run_cpu();
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_TRUE(contains(r, "tried to start a program (execve)")) << r.both();
    EXPECT_FALSE(h.exists("executed"));
}

TEST(HostileFiles, WritingAFileIsRefused) {
    Hostile h("write_file.cu");
    const ProcessResult r = h.run_cpu();
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_TRUE(
        contains(r, "thread (2,0,0) of block (0,0,0) tried to write the file " + (h.dir.path() / "written").string()))
        << r.both();
    EXPECT_FALSE(h.exists("written"));
    h.expect_json_error("tried to write the file");
}

TEST(HostileFiles, ConnectingToTheNetworkIsRefused) {
    const int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    ASSERT_GE(listener, 0);
    sockaddr_in at{};
    at.sin_family = AF_INET;
    at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof at;
    ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&at), sizeof at), 0);
    ASSERT_EQ(listen(listener, 4), 0);
    ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&at), &len), 0);
    Hostile h("connect_socket.cu", ntohs(at.sin_port));
    const ProcessResult r = h.run_cpu();
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_TRUE(contains(r, "tried to open a network connection (socket)")) << r.both();
    pollfd p{listener, POLLIN, 0};
    EXPECT_EQ(poll(&p, 1, 200), 0) << "someone connected to the test's port";
    close(listener);
}

TEST(HostileFiles, ReadingAFileOutsideTheSandboxIsRefusedAndNothingLeaks) {
    Hostile h("read_secret.cu");
    const ProcessResult r = h.cli({"run", h.file.string(), "--backend", "cpu", "--json", h.json().string(), "--out-dir",
                                   (h.dir.path() / "views").string()});
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_TRUE(contains(r, "tried to read the file " + (h.dir.path() / "home" / "secret.txt").string())) << r.both();
    h.expect_secret_kept(r);
    if (fs::exists(h.dir.path() / "views")) {
        for (const auto& f : fs::recursive_directory_iterator(h.dir.path() / "views")) {
            EXPECT_EQ(cp::test::read_file(f.path()).find(h.secret), std::string::npos) << f.path();
        }
    }
}

TEST(HostileFiles, ReadingPasswordHashesAndAnSshKeyIsRefusedAndNothingLeaks) {
    // The app runs as root in CI, so /etc/shadow is readable to it: only the sandbox keeps the kernel out.
    Hostile h("read_ssh_key.cu");
    const ProcessResult r = h.run_cpu();
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_TRUE(contains(r, "thread (0,0,0) of block (0,0,0) tried to read the file /etc/shadow (openat)")) << r.both();
    EXPECT_TRUE(contains(r, "it also tried to read the file " + (h.dir.path() / "home" / ".ssh" / "id_rsa").string()))
        << r.both();
    EXPECT_TRUE(contains(r, "kernels can only compute")) << r.both();
    h.expect_secret_kept(r);
    h.expect_json_error("tried to read the file /etc/shadow");
    const std::string shadow_root = "root:";
    EXPECT_EQ(r.both().find(shadow_root), std::string::npos) << r.both();
}

TEST(HostileFiles, SignallingTheAppIsRefusedAndTheAppLivesOn) {
    Hostile h("signal_parent.cu");
    const ProcessResult r = h.run_cpu();
    EXPECT_EQ(r.exit_code, 1) << "the app should end on its own, with a message:\n" << r.both();
    EXPECT_TRUE(contains(r, "tried to send a signal to another process (kill)")) << r.both();
    h.expect_json_error("send a signal");
}

TEST(HostileFiles, AStaticConstructorIsSandboxedToo) {
    Hostile h("static_constructor.cu");
    const ProcessResult r = h.run_cpu();
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_TRUE(contains(r, "while loading kernel `static_constructor`")) << r.both();
    EXPECT_TRUE(contains(r, "tried to start a program")) << r.both();
    EXPECT_FALSE(h.exists("started_at_load"));
    h.expect_json_error("while loading");
}

TEST(HostileFiles, HostFunctionsCalledFromAKernelAreRefusedByNvrtcFirst) {
    Hostile h("host_call_in_kernel.cu");
    const ProcessResult r = h.run_cpu();
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_TRUE(contains(r, "__host__ function is not allowed")) << "NVRTC's own words\n" << r.both();
    EXPECT_TRUE(contains(r, "checks device code with NVRTC")) << r.both();
    EXPECT_FALSE(h.exists("started"));
    const ProcessResult c = h.compile();
    EXPECT_EQ(c.exit_code, 1) << c.both();
    EXPECT_TRUE(contains(c, "__host__ function is not allowed")) << c.both();
}

TEST(HostileFiles, AbsoluteAndEscapingIncludesAreRefusedOnBothCompilers) {
    for (const char* name : {"absolute_include.cu", "escaping_include.cu"}) {
        Hostile h(name);
        const std::string why =
            std::string(name) == "absolute_include.cu" ? "not an absolute path" : "it leaves the kernel file's folder";
        for (const ProcessResult& r : {h.run_cpu(), h.compile()}) {
            EXPECT_EQ(r.exit_code, 1) << name << "\n" << r.both();
            EXPECT_TRUE(contains(r, ":7:10: error: `#include \"")) << name << "\n" << r.both();
            EXPECT_TRUE(contains(r, "is refused: ")) << name << "\n" << r.both();
            EXPECT_TRUE(contains(r, why)) << name << "\n" << r.both();
            h.expect_secret_kept(r);
        }
    }
}

TEST(HostileFiles, LocalHeadersWorkTheSameOnBothCompilers) {
    TempDir dir;
    dir.write("lesson/common/scale.h", "#pragma once\n#include \"factor.h\"\n#define SCALE (2 * FACTOR)\n");
    dir.write("lesson/common/factor.h", "#define FACTOR 3\n");
    const fs::path file = dir.write("lesson/scaled.cu",
                                    "/*@playground\ntitle: Local headers\nbuffer out: int[100] out zeros\nblock: 32\n"
                                    "grid: 4\nview out: plot\n*/\n#include \"common/scale.h\"\n"
                                    "extern \"C\" __global__ void scaled(int* out)\n{\n"
                                    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                    "    if (i < 100) out[i] = i * SCALE;\n}\n");
    const std::vector<std::string> env = {"CUDA_PLAYGROUND_CACHE_DIR=" + cp::test::hostile_cache_dir().path().string()};
    const ProcessResult c = cp::test::run_process({CP_BINARY, "compile", file.string()}, env);
    EXPECT_EQ(c.exit_code, 0) << c.both();
    const ProcessResult r = cp::test::run_process(
        {CP_BINARY, "run", file.string(), "--backend", "cpu", "--out-dir", (dir.path() / "views").string()}, env);
    ASSERT_EQ(r.exit_code, 0) << r.both();
    const std::string csv = cp::test::read_file(dir.path() / "views" / "out.csv");
    EXPECT_NE(csv.find("\n99,594"), std::string::npos) << "out[99] = 99 * 6\n" << csv;
    EXPECT_NE(csv.find("\n7,42\n"), std::string::npos) << csv;
}

TEST(HostileFiles, ComputedIncludesAndIncbinCannotReadOtherFiles) {
    if (!cp::test::compilers_confined())
        GTEST_SKIP() << "no Landlock on this kernel: the compilers are not confined here";
    {
        Hostile h("computed_include.cu");
        for (const ProcessResult& r : {h.run_cpu(), h.compile()}) {
            EXPECT_EQ(r.exit_code, 1) << r.both();
            EXPECT_TRUE(contains(r, "Permission denied")) << r.both();
            EXPECT_TRUE(contains(r, "the compiler may read only")) << r.both();
            h.expect_secret_kept(r);
        }
    }
    {
        Hostile h("incbin.cu");
        const ProcessResult r = h.run_cpu();
        EXPECT_EQ(r.exit_code, 1) << r.both();
        EXPECT_TRUE(contains(r, "the assembler: file not found: " + (h.dir.path() / "home" / "secret.txt").string()))
            << r.both();
        h.expect_secret_kept(r);
    }
}

TEST(HostileFiles, ExitAndAbortInAKernelAreReportedNotFatal) {
    for (const auto& [name, words] : {std::pair<std::string, std::string>{"kernel_exit.cu", "called exit(3)"},
                                      {"kernel_abort.cu", "called abort()"}}) {
        Hostile h(name);
        const ProcessResult r = h.run_cpu();
        EXPECT_EQ(r.exit_code, 1) << r.both();
        EXPECT_TRUE(
            contains(r, "thread (5,0,0) of block (1,0,0) " + words + " (line 13); kernels cannot end the program"))
            << r.both();
        h.expect_json_error(words);
    }
}

TEST(HostileFiles, AnInfiniteLoopIsStoppedAfterTheTimeOutAndAnnouncedFirst) {
    Hostile h("infinite_loop.cu");
    const auto start = std::chrono::steady_clock::now();
    const ProcessResult r = h.run_cpu({"CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S=2"});
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_TRUE(contains(r,
                         "kernel `infinite_loop` (grid 1x1x1, block 64x1x1) did not finish within 2 s "
                         "(CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S) and was stopped"))
        << r.both();
    EXPECT_NE(r.out.find("launch:   grid 1x1x1, block 64x1x1"), std::string::npos) << r.out;
    EXPECT_LT(s, 20.0) << "compile + 2 s + replacing the worker";
    std::cout
        << "[ figure   ] run with an infinite loop and CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S=2: the process ended after "
        << s << " s (start, compile, 2 s, report)\n";
    h.expect_json_error("did not finish within 2 s");
}

TEST(HostileFiles, NothingHappensWhenNvrtcCompilesThem) {
    for (const char* name : {"start_program.cu", "exec_program.cu", "write_file.cu", "read_secret.cu",
                             "read_ssh_key.cu", "static_constructor.cu", "kernel_exit.cu", "incbin.cu"}) {
        Hostile h(name);
        const ProcessResult r = h.compile();
        EXPECT_EQ(r.exit_code, 0) << name << ": the device code is plain CUDA\n" << r.both();
        for (const char* effect : {"started", "executed", "written", "started_at_load"})
            EXPECT_FALSE(h.exists(effect)) << name;
        h.expect_secret_kept(r);
    }
}
