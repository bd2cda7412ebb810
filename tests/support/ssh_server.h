// A real OpenSSH server for the tests of --remote: sshd on 127.0.0.1 at a free port, with a host key, a user
// key and its own config in a temporary folder, started as the current user and stopped (and the folder
// removed) when the object dies.
#pragma once

#include "support/process.h"

#include <sys/types.h>
#include <string>

namespace cp::test {

// A port nobody listens on now on 127.0.0.1: the kernel's pick for a socket bound to port 0.
int free_loopback_port();

class SshServer {
public:
    SshServer();  // starts it; why_not() says why when it cannot run here (the test skips)
    ~SshServer();
    SshServer(const SshServer&) = delete;
    SshServer& operator=(const SshServer&) = delete;

    bool running() const { return why_not_.empty(); }
    const std::string& why_not() const { return why_not_; }
    // "ssh -F /dev/null -i KEY -p PORT -o ... 127.0.0.1": what --remote takes.
    std::string prefix() const;
    const std::filesystem::path& folder() const { return dir_.path(); }
    // Stops sshd (the server becomes unreachable: connections are refused) and starts it again on the same
    // port with the same keys; restart() is false (why_not() says why) when it does not come back.
    void stop();
    bool restart();

private:
    std::string start();
    std::string launch();
    TempDir dir_;
    pid_t pid_ = -1;
    int port_ = 0;
    std::string why_not_;
};

}  // namespace cp::test
