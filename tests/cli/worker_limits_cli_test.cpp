// The class server's limits file, enforced by `worker --stdio` (reached with `--remote "env ..."`, no ssh
// needed): device memory per worker, the launch timeout's cap, concurrent workers per user (slots freed by a
// crash), and a broken file named with its line.
#include "cli_support.h"

#include "core/remote/remote_backend.h"
#include "core/remote/worker_limits.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

using cp::test::cli;
namespace fs = std::filesystem;

namespace {

std::string limits_program_env() {
    return std::string("CUDA_PLAYGROUND_REMOTE_PROGRAM=") + CP_BINARY;
}

// `env CUDA_PLAYGROUND_WORKER_LIMITS=FILE ...`: the worker on "the server" reads `file`.
std::string remote_with(const fs::path& file, const std::string& more = "") {
    return "env CUDA_PLAYGROUND_WORKER_LIMITS=" + file.string() +
           " CUDA_PLAYGROUND_CACHE_DIR=" + cp::test::cli_cache_dir().path().string() + (more.empty() ? "" : " " + more);
}

cp::RemoteOptions options_with(const fs::path& file, const std::string& prefix_lead = "") {
    cp::RemoteOptions o;
    o.prefix = prefix_lead + remote_with(file);
    o.program = CP_BINARY;
    o.backend = "cpu";
    return o;
}

}  // namespace

TEST(WorkerLimits, TheFileParsesAndItsMistakesNameTheLine) {
    auto ok = cp::parse_worker_limits(
        "# the GPU server of the course\n\ndevice_memory_mb = 2048   # per student\nlaunch_timeout_s=5\n"
        "  max_workers_per_user = 3\nruntime_dir = /run/cp\n",
        "worker.conf");
    ASSERT_TRUE(ok) << ok.error().full();
    EXPECT_EQ(ok->device_memory_mb, 2048u);
    EXPECT_EQ(ok->launch_timeout_s, 5);
    EXPECT_EQ(ok->max_workers_per_user, 3);
    EXPECT_EQ(ok->runtime_dir, "/run/cp");
    auto none = cp::parse_worker_limits("", "empty.conf");
    ASSERT_TRUE(none);
    EXPECT_FALSE(none->device_memory_mb || none->launch_timeout_s || none->max_workers_per_user);

    struct Case {
        std::string text, words;
    };
    for (const Case& c : std::vector<Case>{
             {"launch_timeout_s = 5\ndevice_memory_mb = lots\n", "w.conf line 2: `device_memory_mb` must be a whole"},
             {"device_memory_mb = 0\n", "w.conf line 1: `device_memory_mb` must be a whole number above 0"},
             {"\n\n# x\nmax_workers = 3\n", "w.conf line 4: unknown setting `max_workers`"},
             {"launch_timeout_s 5\n", "w.conf line 1: `launch_timeout_s 5` is not `key = value`"},
             {"launch_timeout_s = 5\nlaunch_timeout_s = 6\n",
              "w.conf line 2: `launch_timeout_s` was already set on line 1"},
             {"max_workers_per_user = 2x\n", "`max_workers_per_user` must be a whole number above 0, not `2x`"},
             {"runtime_dir = tmp\n", "w.conf line 1: runtime_dir must be an absolute path"},
         }) {
        auto r = cp::parse_worker_limits(c.text, "w.conf");
        ASSERT_FALSE(r) << c.text;
        EXPECT_EQ(r.error().kind, cp::ErrorKind::UserInput);
        EXPECT_NE(r.error().message.find(c.words), std::string::npos) << r.error().message;
        EXPECT_NE(r.error().hint.find("device_memory_mb, launch_timeout_s"), std::string::npos);
    }
}

TEST(WorkerLimits, ABrokenFileOnTheServerIsShownByTheApp) {
    cp::test::TempDir dir;
    const fs::path file = dir.write("worker.conf", "device_memory_mb = 512\nlaunch_timeout_s = soon\n");
    auto r = cli({"run", "basics/vector_add", "--backend", "cpu", "--remote", remote_with(file)}, {limits_program_env()});
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_NE(r.err.find("cannot serve: " + file.string() + " line 2: `launch_timeout_s` must be a whole number"),
              std::string::npos)
        << r.err;
    // Once: the worker's stderr, which says the same, is not appended to it.
    const std::string words = "line 2: `launch_timeout_s` must be";
    EXPECT_EQ(r.err.find(words), r.err.rfind(words)) << r.err;
    auto missing = cli({"run", "basics/vector_add", "--backend", "cpu", "--remote", remote_with(dir.path() / "nope")},
                       {limits_program_env()});
    EXPECT_EQ(missing.exit_code, 1) << missing.both();
    EXPECT_NE(missing.err.find("cannot read the worker limits file " + (dir.path() / "nope").string()),
              std::string::npos)
        << missing.err;
}

TEST(WorkerLimits, AllocationsPastTheServersDeviceMemoryAreRefused) {
    cp::test::TempDir dir;
    const fs::path file = dir.write("worker.conf", "device_memory_mb = 1\n");
    auto backend = cp::make_remote_backend(options_with(file));
    ASSERT_TRUE(backend) << backend.error().full();
    const uint64_t most = 1024 * 1024, part = most * 5 / 8;  // two parts do not fit, one does
    const cp::AllocateResult a = (*backend)->allocate({"a", part, 4});
    ASSERT_FALSE(a.error) << a.error->message;
    const cp::AllocateResult b = (*backend)->allocate({"b", part, 4});
    ASSERT_TRUE(b.error);
    EXPECT_EQ(b.error->kind, cp::ErrorKind::OutOfMemory);
    char part_mb[16];  // amounts under 10 MB are said with one decimal, so they add up
    std::snprintf(part_mb, sizeof part_mb, "%.1f MB", double(part) / double(most));
    EXPECT_NE(b.error->message.find(std::string("`b` needs ") + part_mb +
                                    " of device memory, but this server allows 1 MB per student and this worker holds " +
                                    part_mb),
              std::string::npos)
        << b.error->message;
    EXPECT_NE(b.error->hint.find("device_memory_mb in " + file.string()), std::string::npos) << b.error->hint;
    // What is released is counted off: the same size fits again, and so does the rest up to the limit exactly.
    (*backend)->release({{a.buffer}, {}});
    const cp::AllocateResult c = (*backend)->allocate({"c", part, 4});
    ASSERT_FALSE(c.error) << c.error->message;
    const cp::AllocateResult d = (*backend)->allocate({"d", most - part, 4});
    ASSERT_FALSE(d.error) << d.error->message;
    EXPECT_TRUE((*backend)->allocate({"e", 1, 1}).error);

    // A lesson whose buffers pass the limit fails with the server's message; a small one runs.
    auto big = cli({"run", "basics/vector_add", "--backend", "cpu", "--set", "n=100000", "--remote", remote_with(file)},
                   {limits_program_env()});
    EXPECT_EQ(big.exit_code, 1) << big.both();
    EXPECT_NE(big.err.find("this server allows 1 MB per student"), std::string::npos) << big.err;
    auto small = cli({"run", "basics/vector_add", "--backend", "cpu", "--set", "n=1000", "--remote", remote_with(file)},
                     {limits_program_env()});
    EXPECT_EQ(small.exit_code, 0) << small.both();
}

TEST(WorkerLimits, TheServerCapsTheLaunchTimeoutTheStudentAsksFor) {
    cp::test::TempDir dir;
    const fs::path file = dir.write("worker.conf", "launch_timeout_s = 1\n");
    std::string lesson = cp::test::read_file(std::string(CP_SOURCE_DIR) + "/kernels/basics/vector_add.cu");
    const std::string sum = "c[i] = a[i] + b[i];";
    ASSERT_NE(lesson.find(sum), std::string::npos);
    lesson.replace(lesson.find(sum), sum.size(), "for (volatile int spin = 1; spin;) c[i] = a[i];");  // the kernel's
    const fs::path spin = dir.write("spin.cu", lesson);
    // The student asks the server for 600 s; the app itself waits 5 s + the network's margin for an answer.
    const auto started = std::chrono::steady_clock::now();
    auto r = cli({"run", spin.string(), "--backend", "cpu", "--set", "n=1000", "--remote",
                  remote_with(file, "CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S=600")},
                 {limits_program_env(), "CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S=5"});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_NE(r.err.find("did not finish within 1 s"), std::string::npos) << r.err;
    EXPECT_LT(seconds, 30.0);
}

TEST(WorkerLimits, WorkersPerUserAreCountedAndACrashedOneFreesItsSlot) {
    cp::test::TempDir dir;
    const fs::path runtime = dir.path() / "run";
    fs::create_directory(runtime);
    const fs::path file =
        dir.write("worker.conf", "max_workers_per_user = 2\nruntime_dir = " + runtime.string() + "\n");
    // The first worker's pid, for the test to kill it: the shell records its own and becomes the worker (exec).
    const fs::path pid_file = dir.path() / "pid";
    auto first =
        cp::make_remote_backend(options_with(file, "sh -c 'echo $$ > " + pid_file.string() + "; exec \"$0\" \"$@\"' "));
    ASSERT_TRUE(first) << first.error().full();
    auto second = cp::make_remote_backend(options_with(file));
    ASSERT_TRUE(second) << second.error().full();

    auto third = cp::make_remote_backend(options_with(file));
    ASSERT_FALSE(third);
    EXPECT_NE(third.error().message.find("cannot serve: this server allows 2 CUDA Playground workers per user at "
                                         "once, and all 2 of yours are running"),
              std::string::npos)
        << third.error().message;
    EXPECT_NE(third.error().hint.find("max_workers_per_user in " + file.string()), std::string::npos)
        << third.error().hint;
    // The app's CLI shows it too.
    auto r = cli({"run", "basics/vector_add", "--backend", "cpu", "--remote", remote_with(file)}, {limits_program_env()});
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_NE(r.err.find("this server allows 2 CUDA Playground workers per user"), std::string::npos) << r.err;

    // A worker killed outright frees its slot (the kernel drops its lock with its descriptors).
    const pid_t pid = std::stoi(cp::test::read_file(pid_file));
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    // The lock goes when the process is gone; the app's backend reaps it when it notices the loss.
    const cp::AllocateResult lost = (*first)->allocate({"x", 16, 4});
    ASSERT_TRUE(lost.error);
    EXPECT_EQ(lost.error->kind, cp::ErrorKind::WorkerLost);
    auto again = cp::make_remote_backend(options_with(file));
    EXPECT_TRUE(again) << again.error().full();
}
