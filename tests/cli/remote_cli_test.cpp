// --remote and `worker --stdio` with real engines: lessons run through a real OpenSSH server on 127.0.0.1 and a
// real single-node Slurm (srun; CPU backend on the other side) give what the same runs give here; a worker of another
// protocol and a command that ends at once are clear errors naming the command; a worker lost mid-session is
// WorkerLost, and the next request starts a new one.
#include "cli_support.h"
#include "support/slurm_cluster.h"
#include "support/ssh_server.h"

#include "core/engine/engine_wire.h"
#include "core/remote/remote_backend.h"
#include "core/worker/wire_frame.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>

using cp::test::cli;
namespace fs = std::filesystem;

namespace {

// The remote side's compile cache: the shared test cache (ssh passes no environment, so the prefix sets it).
std::string remote_prefix(const std::string& ssh) {
    return ssh + " env CUDA_PLAYGROUND_CACHE_DIR=" + cp::test::cli_cache_dir().path().string();
}

std::string program_env() {
    return std::string("CUDA_PLAYGROUND_REMOTE_PROGRAM=") + CP_BINARY;
}

// `run FILE ARGS --json --out-dir` here and through `remote`: the JSON of each and the files written.
struct PairedRun {
    nlohmann::json local, remote;
    std::map<std::string, std::string> local_files, remote_files;
};

std::map<std::string, std::string> files_in(const fs::path& dir) {
    std::map<std::string, std::string> files;
    for (const auto& e : fs::directory_iterator(dir))
        files[e.path().filename().string()] = cp::test::read_file(e.path());
    return files;
}

PairedRun run_both(const std::string& file, std::vector<std::string> args, const std::string& remote) {
    cp::test::TempDir out;
    PairedRun p;
    for (const bool far : {false, true}) {
        const fs::path dir = out.path() / (far ? "remote" : "local");
        const fs::path json = out.path() / (far ? "remote.json" : "local.json");
        std::vector<std::string> a = {"run",    file,          "--backend", "cpu",
                                      "--json", json.string(), "--out-dir", dir.string()};
        a.insert(a.end(), args.begin(), args.end());
        if (far) a.insert(a.end(), {"--remote", remote});
        auto r = cli(a, {program_env()});
        EXPECT_EQ(r.exit_code, 0) << (far ? "remote: " : "local: ") << r.err;
        (far ? p.remote : p.local) = nlohmann::json::parse(cp::test::read_file(json));
        (far ? p.remote_files : p.local_files) = files_in(dir);
    }
    return p;
}

void expect_same_results(const PairedRun& p, const std::string& where_lead = "remote: `/usr/bin/ssh -F /dev/null ") {
    EXPECT_EQ(p.local["where"], "local");
    const std::string where = p.remote["where"];
    EXPECT_EQ(where.rfind(where_lead, 0), 0u) << where;
    EXPECT_NE(where.find("-> host "), std::string::npos) << where;
    EXPECT_EQ(p.local["check"]["state"], "matches");
    EXPECT_EQ(p.remote["check"], p.local["check"]);
    EXPECT_EQ(p.remote["outcome"], p.local["outcome"]);
    EXPECT_EQ(p.remote["grid"], p.local["grid"]);
    ASSERT_FALSE(p.local_files.empty());
    ASSERT_EQ(p.remote_files.size(), p.local_files.size());
    for (const auto& [name, bytes] : p.local_files) {
        ASSERT_TRUE(p.remote_files.count(name)) << name;
        EXPECT_TRUE(p.remote_files.at(name) == bytes) << name << " differs between the remote and the local run";
    }
}

}  // namespace

TEST(RemoteCli, LessonsThroughRealSshMatchTheLocalRuns) {
    cp::test::SshServer sshd;
    if (!sshd.running()) GTEST_SKIP() << "no SSH server for this test: " << sshd.why_not();
    const std::string remote = remote_prefix(sshd.prefix());

    // 1000 elements: the last of 4 blocks of 256 is partly idle.
    PairedRun vector_add = run_both("basics/vector_add", {"--set", "n=1000"}, remote);
    expect_same_results(vector_add);
    EXPECT_EQ(vector_add.remote["grid"][0], 4);
    PairedRun blur = run_both("image/box_blur", {}, remote);
    expect_same_results(blur);

    // `info --remote` names the server's backend and host.
    auto info = cli({"info", "--remote", remote, "--backend", "cpu", "--json"}, {program_env()});
    ASSERT_EQ(info.exit_code, 0) << info.err;
    const auto j = nlohmann::json::parse(info.out);
    EXPECT_EQ(j["default_backend"], "cpu");
    EXPECT_EQ(std::string(j["where"]).rfind("remote: `/usr/bin/ssh ", 0), 0u) << info.out;
}

TEST(RemoteCli, LessonsThroughRealSlurmMatchTheLocalRuns) {
    cp::test::SlurmCluster slurm;
    if (!slurm.running()) GTEST_SKIP() << "no Slurm for this test: " << slurm.why_not();
    // srun passes the app's environment to the task: the shared compile cache goes with it.
    const std::string remote = slurm.srun_prefix();

    PairedRun vector_add = run_both("basics/vector_add", {"--set", "n=1000"}, remote);
    expect_same_results(vector_add, "remote: `env SLURM_CONF=");
    EXPECT_EQ(vector_add.remote["grid"][0], 4);  // the last of 4 blocks of 256 is partly idle
    EXPECT_NE(std::string(vector_add.remote["where"]).find("/usr/bin/srun -N1 -n1"), std::string::npos);
    // Without --unbuffered (as a student may type it): the app adds it.
    std::string plain = remote;
    plain.erase(plain.find(" --unbuffered"), std::string(" --unbuffered").size());
    PairedRun blur = run_both("image/box_blur", {}, plain);
    expect_same_results(blur, "remote: `env SLURM_CONF=");
}

TEST(RemoteCli, AWorkerOfAnotherProtocolIsRefusedOnBothSides) {
    const int other = cp::kWireProtocolVersion + 7;
    auto r = cli({"run", "basics/vector_add", "--backend", "cpu", "--remote",
                  "env CUDA_PLAYGROUND_PRETEND_PROTOCOL=" + std::to_string(other)},
                 {program_env()});
    EXPECT_EQ(r.exit_code, 1) << r.both();
    // The app's side: the worker's number against its own, and which command it started.
    EXPECT_NE(r.err.find("speaks wire protocol " + std::to_string(other) + " but this app speaks " +
                         std::to_string(cp::kWireProtocolVersion)),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("`env CUDA_PLAYGROUND_PRETEND_PROTOCOL="), std::string::npos) << r.err;
    // The worker's side, on its stderr (shown in the app's message): the app's number against its own.
    EXPECT_NE(r.err.find("the app (build "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("speaks wire protocol " + std::to_string(cp::kWireProtocolVersion) + " but this worker"),
              std::string::npos)
        << r.err;
}

// A stand-in for `worker --stdio`: a shell that sends `greeting` as its one frame, writes "stderr-line-N" on its
// stderr (N = `n`, computed by the shell, so that the words are not in the command the app's message names) and
// waits for the app to close the link.
cp::RemoteOptions greeting_only(const cp::test::TempDir& dir, const nlohmann::json& greeting, int n) {
    const fs::path frame = dir.path() / "greeting.frame";
    const int fd = open(frame.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    EXPECT_GE(fd, 0);
    EXPECT_TRUE(cp::write_message(fd, cp::WireMessage{greeting.dump(), {}, {}}));
    close(fd);
    cp::RemoteOptions options;
    options.prefix = "sh -c 'cat " + frame.string() + "; echo stderr-line-$((" + std::to_string(n - 1) +
                     " + 1)) >&2; cat >/dev/null'";
    options.backend = "cpu";
    return options;
}

nlohmann::json worker_greeting(int protocol, const std::string& kind, const std::string& message) {
    return {{"hello", "cuda-playground worker"},
            {"protocol", protocol},
            {"build", "other"},
            {"host", "far"},
            {"ok", false},
            {"message", message},
            {"hint", "a hint of its own"},
            {"kind", kind}};
}

TEST(RemoteCli, AWorkersStderrIsShownUnlessItsRefusalAlreadySaidIt) {
    cp::test::TempDir dir;
    // The worker's refusal is the message: its stderr (which says it again) is not added.
    auto refused = cp::make_remote_backend(
        greeting_only(dir, worker_greeting(cp::kWireProtocolVersion, "user_input", "no room"), 42));
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().kind, cp::ErrorKind::UserInput) << refused.error().message;
    EXPECT_EQ(refused.error().hint, "a hint of its own");
    EXPECT_EQ(refused.error().message.find("stderr-line-42"), std::string::npos) << refused.error().message;

    // A worker of another protocol is refused by the app, in the app's words: the worker's stderr follows, even
    // when the words of its own refusal happen to be among the app's.
    auto other = cp::make_remote_backend(greeting_only(
        dir, worker_greeting(cp::kWireProtocolVersion + 1, "worker_lost", "wire protocol"), 57));
    ASSERT_FALSE(other);
    EXPECT_EQ(other.error().kind, cp::ErrorKind::WorkerLost) << other.error().message;
    EXPECT_NE(other.error().message.find("stderr-line-57"), std::string::npos) << other.error().message;
}

TEST(RemoteCli, ACommandThatEndsAtOnceIsWorkerLostNamingIt) {
    auto r = cli({"run", "basics/vector_add", "--backend", "cpu", "--remote",
                  "sh -c 'echo no route to gpu$((90 + 9)) >&2; exit 3'"},
                 {program_env()});
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_NE(r.err.find("the remote worker `sh -c "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("exit status 3"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("the server is unreachable"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("no route to gpu99"), std::string::npos) << r.err;  // the remote's stderr, not the command
    EXPECT_NE(r.err.find("hint: check that `sh -c"), std::string::npos) << r.err;

    auto json = cli({"info", "--json", "--remote", "false"}, {program_env()});
    EXPECT_EQ(json.exit_code, 1);
    EXPECT_EQ(nlohmann::json::parse(json.out)["default_backend"], "none") << json.out;
}

TEST(RemoteCli, AWorkerLostMidSessionIsWorkerLostAndTheNextRequestReconnects) {
    cp::test::TempDir dir;
    const fs::path pid_file = dir.path() / "pid";
    cp::RemoteOptions options;
    // The worker's pid, for the test to kill it: the shell records its own and becomes the worker (exec).
    options.prefix = "sh -c 'echo $$ > " + pid_file.string() +
                     "; exec \"$0\" \"$@\"' env CUDA_PLAYGROUND_CACHE_DIR=" + cp::test::cli_cache_dir().path().string();
    options.program = CP_BINARY;
    options.backend = "cpu";
    auto backend = cp::make_remote_backend(options);
    ASSERT_TRUE(backend) << backend.error().full();
    const cp::DeviceInfo device = (*backend)->info().device;
    EXPECT_EQ(device.backend, "cpu");
    EXPECT_FALSE(device.caps.device_buffers);  // outputs are read back, never imported
    EXPECT_FALSE(device.caps.buffers_by_ipc);
    const cp::AllocateResult a = (*backend)->allocate({"x", 64, 4});
    ASSERT_FALSE(a.error) << a.error->message;
    EXPECT_TRUE(a.ipc_handle.empty());

    const pid_t first = std::stoi(cp::test::read_file(pid_file));
    ASSERT_EQ(kill(first, SIGKILL), 0);
    const cp::UploadResult lost = (*backend)->upload({a.buffer, std::vector<std::byte>(64)});
    ASSERT_TRUE(lost.error);
    EXPECT_EQ(lost.error->kind, cp::ErrorKind::WorkerLost);
    EXPECT_TRUE(lost.error->context_was_reset);
    EXPECT_NE(lost.error->message.find("the remote worker `sh -c "), std::string::npos) << lost.error->message;
    EXPECT_NE(lost.error->message.find("killed by signal"), std::string::npos) << lost.error->message;

    // The next request starts a new worker.
    const cp::AllocateResult again = (*backend)->allocate({"y", 16, 4});
    ASSERT_FALSE(again.error) << again.error->message;
    EXPECT_NE(std::stoi(cp::test::read_file(pid_file)), first);
}

TEST(RemoteCli, SrunGetsUnbufferedWhenThePrefixLacksIt) {
    using W = std::vector<std::string>;
    EXPECT_EQ(cp::with_srun_unbuffered({"ssh", "login", "srun", "--gres=gpu:1"}),
              (W{"ssh", "login", "srun", "--unbuffered", "--gres=gpu:1"}));
    EXPECT_EQ(cp::with_srun_unbuffered({"/usr/bin/srun", "-N1"}), (W{"/usr/bin/srun", "--unbuffered", "-N1"}));
    EXPECT_EQ(cp::with_srun_unbuffered({"srun", "-u", "-N1"}), (W{"srun", "-u", "-N1"}));
    EXPECT_EQ(cp::with_srun_unbuffered({"srun", "-N1", "--unbuffered"}), (W{"srun", "-N1", "--unbuffered"}));
    EXPECT_EQ(cp::with_srun_unbuffered({"ssh", "gpu01"}), (W{"ssh", "gpu01"}));
    EXPECT_EQ(cp::with_srun_unbuffered({"ssh", "xsrun"}), (W{"ssh", "xsrun"}));
}

TEST(RemoteCli, PrefixesSplitLikeAShellWithoutOne) {
    auto w =
        cp::split_command_words(R"(ssh  -o "ProxyCommand=ssh -W %h:%p jump" login 'srun --gres=gpu:1' a\ b "x\"y")");
    ASSERT_TRUE(w);
    const std::vector<std::string> expected = {
        "ssh", "-o", "ProxyCommand=ssh -W %h:%p jump", "login", "srun --gres=gpu:1", "a b", "x\"y"};
    EXPECT_EQ(*w, expected);
    EXPECT_FALSE(cp::split_command_words("ssh 'gpu01"));
    EXPECT_TRUE(cp::split_command_words("   ")->empty());
}
