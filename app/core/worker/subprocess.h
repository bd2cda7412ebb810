// Running a helper program (the host compiler, addr2line) and capturing what it prints, with a time limit.
#pragma once

#include <string>
#include <vector>

namespace cp {

struct ProcessOutcome {
    bool started = false;   // false: the program could not be run (not found, not executable)
    int exit_code = -1;     // -1 when killed by a signal or timed out
    bool timed_out = false;
    std::string output;     // stdout and stderr, interleaved
    std::string error;      // why it could not be started
};

// argv[0] is looked up in PATH when it has no '/'. `environment` ("NAME=value") replaces those variables of
// this process's environment for the program. Never throws.
ProcessOutcome run_process(const std::vector<std::string>& argv, double timeout_s = 60,
                           const std::vector<std::string>& environment = {});

// Finds `name` in PATH (or checks it when it contains '/'); empty when not found.
std::string find_executable(const std::string& name);

}  // namespace cp
