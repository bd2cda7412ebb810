// `run --sanitize TOOL --remote PREFIX` (core/remote/remote_sanitize.h) without a GPU: the sanitizer's log
// travels back over the link as the worker ends and becomes findings on their lines, as a local one does; a
// server without compute-sanitizer, or without the CUDA backend, refuses with what it lacks and its host name.
// The run under the real compute-sanitizer is tests/gpu/guard_zone_gpu_test.cpp (SanitizeCli.*OverRemote).
#include "cli_support.h"

#include "core/kernel_file/kernel_file.h"
#include "core/remote/remote_backend.h"
#include "core/session/sanitize.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

using cp::test::cli;
namespace fs = std::filesystem;

namespace {

std::string this_host() {
    char name[256] = {};
    gethostname(name, sizeof name - 1);
    return name;
}

// A CUDA 13 memcheck log for a write one past the end at `file`:`line` (as the H100 wrote it).
std::string memcheck_log(const std::string& file, int line) {
    return "========= COMPUTE-SANITIZER\n"
           "========= Invalid __global__ write of size 4 bytes\n"
           "=========     at shift+0xe0 in " +
           file + ":" + std::to_string(line) +
           "\n"
           "=========     by thread (231,0,0) in block (3,0,0)\n"
           "=========     Access to 0x7f69fc801fa0 is out of bounds\n"
           "=========     and is 1 bytes after the nearest allocation at 0x7f69fc801000 of size 4,000 bytes\n"
           "=========\n"
           "========= ERROR SUMMARY: 1 error\n";
}

// In bounds (the CPU backend would report a real out-of-bounds write itself); n = 1000 is not a multiple of 256.
const char* kShift =
    "/*@playground\ntitle: Shift\nparam n: int = 1000\n"
    "buffer in: float[n] in ramp(start=0, step=1)\nbuffer out: float[n] out zeros\n"
    "block: 256\ngrid: ceil(n / block.x)\n*/\n"
    "extern \"C\" __global__ void shift(const float* in, float* out, int n)\n{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) out[i] = in[i];\n}\n";

}  // namespace

TEST(RemoteSanitize, TheServersLogComesBackAsTheLinkClosesAndBecomesFindings) {
    cp::test::TempDir dir;
    const cp::KernelFile file = cp::parse_kernel_source(kShift, dir.path() / "shift.cu");
    ASSERT_FALSE(cp::has_errors(file.diagnostics));
    // The server's sanitizer stands in as a recorded log (no GPU here); everything after it is the real path:
    // `worker --stdio --sanitize memcheck`, the run over the link, the log's last frame, the local file.
    const fs::path recorded = dir.path() / "server-side.log";
    std::ofstream(recorded) << memcheck_log("shift.cu", 12);
    std::string local_log;
    auto factory = [&](const std::string& tool, const std::string& log) -> cp::Result<std::unique_ptr<cp::Backend>> {
        cp::RemoteOptions options;
        options.prefix = "env CUDA_PLAYGROUND_PRETEND_SANITIZER_LOG=" + recorded.string() +
                         " CUDA_PLAYGROUND_CACHE_DIR=" + cp::test::cli_cache_dir().path().string();
        options.program = CP_BINARY;
        options.backend = "cpu";
        options.sanitize_tool = tool;
        options.sanitizer_log = log;
        local_log = log;
        return cp::make_remote_backend(options);
    };
    cp::RunOptions options;
    options.timing = cp::TimingOptions{0, 1, false};
    auto r = cp::run_sanitized(file, cp::RunChoices{}, options, "memcheck", factory);
    ASSERT_TRUE(r.ok()) << r.error().full();
    EXPECT_TRUE(r->report.launched) << (r->report.error ? r->report.error->full() : "");
    EXPECT_FALSE(r->report.error) << r->report.error->full();
    EXPECT_EQ(r->summary.reported_errors, 1);
    ASSERT_EQ(r->summary.findings.size(), 1u) << "the server's log did not come back";
    EXPECT_EQ(r->summary.findings[0].line, 12);
    EXPECT_EQ(r->summary.findings[0].thread->x, 231u);
    ASSERT_FALSE(r->report.diagnostics.empty());
    EXPECT_EQ(r->report.diagnostics.back().line, 12);
    EXPECT_FALSE(fs::exists(local_log)) << "the local copy is removed once read";
    EXPECT_TRUE(fs::exists(recorded)) << "the test's own file is the server's to copy, not to remove";
}

TEST(RemoteSanitize, AServerWithoutComputeSanitizerSaysSoWithItsHostName) {
    auto r = cli({"run", "basics/vector_add", "--sanitize", "memcheck", "--remote", "env"},
                 {std::string("CUDA_PLAYGROUND_REMOTE_PROGRAM=") + CP_BINARY,
                  "CUDA_PLAYGROUND_COMPUTE_SANITIZER=/nonexistent/compute-sanitizer"});
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_NE(r.err.find("the remote worker on host " + this_host() +
                         " cannot serve: compute-sanitizer was not found on " + this_host()),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("install the CUDA toolkit's sanitizer on the server"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("PASS"), std::string::npos) << "nothing ran: " << r.out;
}

TEST(RemoteSanitize, AServerWhoseCudaBackendCannotRunSaysSo) {
    // A sanitizer that exists (any file): what is missing next is the CUDA backend (no driver here), or on a GPU
    // machine a worker that the stand-in does not start.
    cp::test::TempDir dir;
    const fs::path fake = dir.path() / "compute-sanitizer";
    std::ofstream(fake) << "#!/bin/sh\nexit 7\n";
    fs::permissions(fake, fs::perms::owner_all);
    auto r = cli({"run", "basics/vector_add", "--sanitize", "racecheck", "--remote", "env"},
                 {std::string("CUDA_PLAYGROUND_REMOTE_PROGRAM=") + CP_BINARY,
                  "CUDA_PLAYGROUND_COMPUTE_SANITIZER=" + fake.string()});
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_NE(r.err.find("--sanitize needs the CUDA backend, and it cannot run on " + this_host() + ": "),
              std::string::npos)
        << r.err;
}

TEST(RemoteSanitize, TheCpuBackendIsRefusedOnEitherSide) {
    // Asked here: refused before anything starts.
    auto r = cli({"run", "basics/vector_add", "--backend", "cpu", "--sanitize", "memcheck", "--remote", "env"},
                 {std::string("CUDA_PLAYGROUND_REMOTE_PROGRAM=") + CP_BINARY});
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_NE(r.err.find("on the CPU backend out-of-bounds accesses are always reported"), std::string::npos) << r.err;
    // Asked of the worker directly (an app that did not check): the worker refuses too.
    cp::RemoteOptions options;
    options.prefix = "env";
    options.program = CP_BINARY;
    options.backend = "cpu";
    options.sanitize_tool = "memcheck";
    auto backend = cp::make_remote_backend(options);
    ASSERT_FALSE(backend.ok());
    EXPECT_NE(backend.error().message.find("needs the CUDA backend, and this worker on " + this_host() +
                                           " was asked for the CPU backend"),
              std::string::npos)
        << backend.error().message;
}
