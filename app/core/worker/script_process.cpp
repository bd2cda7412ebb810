// The script's process: started as this executable with CP_SCRIPT_SANDBOX=<spec>, which a static initialiser reads
// before main(): it confines the process and execs the interpreter. The spec is lines "key=value": `exe=`, `arg=`
// (in order), `read=`, `write=`; the interpreter's environment is the process's own, less the spec.
#include "core/worker/script_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

extern char** environ;

namespace cp {

namespace {

constexpr const char* kSpecEnv = "CP_SCRIPT_SANDBOX";

// Tells the app on the script's socket (a message of the script wire, script_host.h) and ends the process.
[[noreturn]] void fail_child(const std::string& why) {
    std::string quoted;
    for (char c : why) {
        if (c == '"' || c == '\\') quoted += '\\';
        if (static_cast<unsigned char>(c) >= 0x20) quoted += c;
    }
    const std::string header = "{\"op\":\"sandbox_failed\",\"message\":\"" + quoted + "\"}";
    unsigned char lengths[12] = {};
    for (int i = 0; i < 4; ++i) lengths[i] = (uint32_t(header.size()) >> (8 * i)) & 0xff;
    (void)!write(kScriptSocketFd, lengths, sizeof lengths);
    (void)!write(kScriptSocketFd, header.data(), header.size());
    std::_Exit(126);
}

// Runs before main() in every process that links this file; only a script's process (CP_SCRIPT_SANDBOX set) stops
// here, and never returns.
const bool g_is_script = [] {
    const char* value = std::getenv(kSpecEnv);
    if (!value) return false;
    std::string exe;
    std::vector<std::string> args;
    FileAccessPolicy policy;
    policy.label = "the script";
    std::istringstream in{std::string(value)};
    std::string line;
    while (std::getline(in, line)) {
        const size_t eq = line.find('=');
        if (eq == std::string::npos) continue;
        const std::string key = line.substr(0, eq), v = line.substr(eq + 1);
        if (key == "exe") exe = v;
        else if (key == "arg") args.push_back(v);
        else if (key == "read") policy.read.emplace_back(v);
        else if (key == "write") policy.read_write.emplace_back(v);
    }
    unsetenv(kSpecEnv);
    if (exe.empty() || args.empty()) fail_child("no interpreter was named");
    if (auto problem = enter_script_sandbox(policy)) fail_child(problem->message);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execve(exe.c_str(), argv.data(), environ);
    fail_child(exe + ": " + std::strerror(errno));
}();

bool has_line_break(const std::string& s) { return s.find('\n') != std::string::npos; }

}  // namespace

Result<ScriptProcess> start_script_process(const ScriptSpawn& spawn) {
    (void)g_is_script;
    std::string spec = "exe=" + spawn.interpreter + "\n";
    for (const std::string& a : spawn.argv) spec += "arg=" + a + "\n";
    for (const auto& p : spawn.policy.read) spec += "read=" + p.string() + "\n";
    for (const auto& p : spawn.policy.read_write) spec += "write=" + p.string() + "\n";
    for (const std::string& a : spawn.argv)
        if (has_line_break(a)) return make_error(ErrorKind::UserInput, "a script argument holds a line break", "");
    for (const auto& p : spawn.policy.read)
        if (has_line_break(p.string()))
            return make_error(ErrorKind::UserInput, "the path " + p.string() + " holds a line break",
                              "rename the folder");
    int sv[2], out[2], err[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return make_error(ErrorKind::Internal, std::string("socketpair: ") + std::strerror(errno));
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
        close(sv[0]);
        close(sv[1]);
        return make_error(ErrorKind::Internal, std::string("pipe: ") + std::strerror(errno));
    }
    std::vector<std::string> env = spawn.env;
    env.push_back(std::string(kSpecEnv) + "=" + spec);
    std::vector<char*> envp;
    for (std::string& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string self = "/proc/self/exe", name = "cuda-playground-script";
    char* argv[] = {name.data(), nullptr};

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    posix_spawn_file_actions_adddup2(&actions, sv[1], kScriptSocketFd);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, self.c_str(), &actions, &attr, argv, envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    close(sv[1]);
    close(out[1]);
    close(err[1]);
    if (rc != 0) {
        close(sv[0]);
        close(out[0]);
        close(err[0]);
        return make_error(ErrorKind::Internal, std::string("cannot start the script's process: ") + std::strerror(rc));
    }
    ScriptProcess p;
    p.pid = pid;
    p.socket = sv[0];
    p.out = out[0];
    p.err = err[0];
    return p;
}

}  // namespace cp
