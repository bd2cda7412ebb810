// A script's interpreter (Python) in a confined process of its own: this executable is started again with
// CP_SCRIPT_SANDBOX set, and a static initialiser, before main(), enters the script sandbox (sandbox.h:
// enter_script_sandbox) and replaces itself with the interpreter. The interpreter gets the app's socket as
// descriptor 3, its stdout and stderr through pipes, no stdin, and only the environment given here; it is the
// leader of a process group of its own, so stopping it stops all of it.
#pragma once

#include "core/result.h"
#include "core/worker/sandbox.h"

#include <sys/types.h>

#include <string>
#include <vector>

namespace cp {

struct ScriptSpawn {
    std::string interpreter;         // absolute path of the interpreter (python3)
    std::vector<std::string> argv;   // its arguments, argv[0] first
    std::vector<std::string> env;    // its whole environment, "NAME=value"
    FileAccessPolicy policy;         // what it may read and write
};

struct ScriptProcess {
    pid_t pid = -1;
    int socket = -1;  // the app's end of the socket the script has as descriptor 3
    int out = -1;     // reading ends of the script's stdout and stderr
    int err = -1;
};

// Starts it; the caller owns the descriptors and reaps the process. An Error when it cannot be started (a path
// with a line break in it, no executable); a sandbox that cannot be entered is the child's exit status 126 with
// the reason on its stderr.
Result<ScriptProcess> start_script_process(const ScriptSpawn& spawn);

// The descriptor number the script's end of the socket has in the script.
constexpr int kScriptSocketFd = 3;

}  // namespace cp
