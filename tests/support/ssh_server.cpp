// SshServer: keys with ssh-keygen, a config, `sshd -f config -D -e` as a child, and a wait on the port.
#include "support/ssh_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

extern char** environ;

namespace cp::test {

namespace {

constexpr const char* kSshd = "/usr/sbin/sshd";
constexpr const char* kSsh = "/usr/bin/ssh";
constexpr const char* kKeygen = "/usr/bin/ssh-keygen";

bool answers(int port) {
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(uint16_t(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool ok = connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    close(s);
    return ok;
}

}  // namespace

// A port nobody listens on now: the kernel's pick for a socket bound to port 0.
int free_loopback_port() {
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    int port = 0;
    if (bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0)
        port = ntohs(a.sin_port);
    close(s);
    return port;
}

SshServer::SshServer() {
    why_not_ = start();
}

std::string SshServer::start() {
    for (const char* tool : {kSshd, kSsh, kKeygen})
        if (access(tool, X_OK) != 0)
            return std::string(tool) + " is not installed (apt-get install openssh-server openssh-client)";
    const auto& d = dir_.path();
    for (const char* key : {"host_key", "user_key"}) {
        auto r = run_process({kKeygen, "-q", "-t", "ed25519", "-N", "", "-f", (d / key).string()});
        if (r.exit_code != 0) return "ssh-keygen failed: " + r.both();
    }
    std::filesystem::copy_file(d / "user_key.pub", d / "authorized_keys");
    // sshd started by root wants its privilege separation folder (Debian makes it at boot, not at install).
    if (geteuid() == 0) {
        mkdir("/run/sshd", 0755);
    }
    port_ = free_loopback_port();
    if (port_ == 0) return "no free port on 127.0.0.1";
    std::ofstream(d / "sshd_config") << "Port " << port_ << "\nListenAddress 127.0.0.1\nHostKey "
                                     << (d / "host_key").string() << "\nPidFile " << (d / "sshd.pid").string()
                                     << "\nAuthorizedKeysFile " << (d / "authorized_keys").string()
                                     << "\nStrictModes no\nUsePAM no\nPasswordAuthentication no\n"
                                        "KbdInteractiveAuthentication no\nPubkeyAuthentication yes\n"
                                        "PermitRootLogin prohibit-password\n";
    return launch();
}

// sshd with the config start() wrote, on its port; ready when the port answers and this user can log in.
std::string SshServer::launch() {
    const auto& d = dir_.path();
    const std::string config = (d / "sshd_config").string(), log = (d / "sshd.log").string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    std::vector<std::string> words = {kSshd, "-f", config, "-D", "-e"};
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    const int rc = posix_spawn(&pid_, kSshd, &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
        pid_ = -1;
        return "could not start sshd";
    }
    // Ready when the port answers; an sshd that ends first says why in its log.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!answers(port_)) {
        int status = 0;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            return "sshd ended at start: " + read_file(d / "sshd.log");
        }
        if (std::chrono::steady_clock::now() > deadline)
            return "sshd did not listen within 20 s: " + read_file(d / "sshd.log");
        usleep(10000);  // between polls of the port, not instead of one
    }
    // It must also let this user in (an sshd not started as root can only log in its own user, and not on
    // every system).
    auto r = run_process({"/bin/sh", "-c", prefix() + " true"});
    if (r.exit_code != 0)
        return std::string(geteuid() == 0
                               ? ""
                               : "sshd not run as root cannot log this user in here (run the tests as root); ") +
               "ssh to it failed: " + r.both() + " sshd: " + read_file(d / "sshd.log");
    return {};
}

SshServer::~SshServer() {
    stop();
}

void SshServer::stop() {
    if (pid_ > 0) {
        kill(pid_, SIGTERM);  // sshd -D ends on SIGTERM, and its sessions with it
        int status = 0;
        waitpid(pid_, &status, 0);
    }
    pid_ = -1;
}

bool SshServer::restart() {
    if (pid_ > 0 || port_ == 0) return pid_ > 0;
    why_not_ = launch();
    return why_not_.empty();
}

std::string SshServer::prefix() const {
    const auto& d = dir_.path();
    return std::string(kSsh) + " -F /dev/null -i " + (d / "user_key").string() + " -p " + std::to_string(port_) +
           " -o UserKnownHostsFile=" + (d / "known_hosts").string() +
           " -o StrictHostKeyChecking=accept-new -o BatchMode=yes -o LogLevel=ERROR 127.0.0.1";
}

}  // namespace cp::test
