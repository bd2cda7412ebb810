// The hostile kernel files (tests/data/hostile) on the CUDA backend, through the binary: the host code they
// hide for the CPU backend never runs (NVRTC compiles device code only), so they run as plain kernels with
// no effect; what NVRTC must refuse (host calls, includes outside the folder, computed includes) is refused
// with a message; a kernel that never ends is stopped by the CUDA worker's watchdog. Skips without a device.
#include "gpu_test_support.h"
#include "support/hostile_files.h"

#include <chrono>
#include "test_paths.h"

namespace cp::gpu_test {
namespace {

using test::Hostile;
using test::output_contains;
using test::ProcessResult;

class HostileOnGpu : public ::testing::Test {
protected:
    void SetUp() override {
        if (auto why = cuda_unavailable()) GTEST_SKIP() << "no CUDA device: " << *why;
    }
};

TEST_F(HostileOnGpu, HiddenHostCodeNeverRunsAndTheKernelsRunPlainly) {
    for (const char* name : {"start_program.cu", "exec_program.cu", "write_file.cu", "read_secret.cu",
                             "read_ssh_key.cu", "signal_parent.cu", "static_constructor.cu", "kernel_exit.cu",
                             "kernel_abort.cu", "connect_socket.cu", "incbin.cu"}) {
        Hostile h(name, 9);
        const ProcessResult r = h.run_on("cuda");
        EXPECT_EQ(r.exit_code, 0) << name << "\n" << r.both();
        for (const char* effect : {"started", "executed", "written", "started_at_load"})
            EXPECT_FALSE(h.exists(effect)) << name;
        h.expect_secret_kept(r);
    }
}

TEST_F(HostileOnGpu, WhatNvrtcMustRefuseIsRefused) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"host_call_in_kernel.cu", "__host__ function is not allowed"},
        {"absolute_include.cu", "not an absolute path"},
        {"escaping_include.cu", "it leaves the kernel file's folder"},
    };
    for (const auto& [name, words] : cases) {
        Hostile h(name);
        const ProcessResult r = h.run_on("cuda");
        EXPECT_EQ(r.exit_code, 1) << name << "\n" << r.both();
        EXPECT_TRUE(output_contains(r, words)) << name << "\n" << r.both();
        EXPECT_FALSE(h.exists("started"));
        h.expect_secret_kept(r);
    }
    if (test::compilers_confined()) {
        Hostile h("computed_include.cu");
        const ProcessResult r = h.run_on("cuda");
        EXPECT_EQ(r.exit_code, 1) << r.both();
        EXPECT_TRUE(output_contains(r, "Permission denied")) << r.both();
        h.expect_secret_kept(r);
    }
}

TEST_F(HostileOnGpu, AKernelThatNeverEndsIsStoppedByTheWatchdog) {
    Hostile h("infinite_loop.cu");
    const auto start = std::chrono::steady_clock::now();
    const ProcessResult r = h.run_on("cuda", {"CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S=3"});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_TRUE(output_contains(r, "did not finish within 3 s")) << r.both();
    EXPECT_NE(r.out.find("launch:   grid 1x1x1, block 64x1x1"), std::string::npos) << "announced before it ran\n"
                                                                                   << r.out;
    EXPECT_LT(seconds, 60.0);
    h.expect_json_error("did not finish within 3 s");
}

TEST_F(HostileOnGpu, LocalHeadersWorkAsOnTheCpuBackend) {
    test::TempDir dir;
    dir.write("lesson/common/scale.h", "#pragma once\n#include \"factor.h\"\n#define SCALE (2 * FACTOR)\n");
    dir.write("lesson/common/factor.h", "#define FACTOR 3\n");
    const auto file = dir.write("lesson/scaled.cu",
                                "/*@playground\ntitle: Local headers\nbuffer out: int[100] out zeros\nblock: 32\n"
                                "grid: 4\nview out: plot\n*/\n#include \"common/scale.h\"\n"
                                "extern \"C\" __global__ void scaled(int* out)\n{\n"
                                "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                "    if (i < 100) out[i] = i * SCALE;\n}\n");
    const ProcessResult r = test::run_process(
        {CP_BINARY, "run", file.string(), "--backend", "cuda", "--out-dir", (dir.path() / "views").string()},
        {"CUDA_PLAYGROUND_CACHE_DIR=" + test::hostile_cache_dir().path().string()});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    const std::string csv = test::read_file(dir.path() / "views" / "out.csv");
    EXPECT_NE(csv.find("\n99,594"), std::string::npos) << csv;
}

}  // namespace
}  // namespace cp::gpu_test
