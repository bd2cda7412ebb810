// The subcommands, in the order `cuda-playground --help` lists them; adding one here is all main() needs.
#include "cli/commands.h"

namespace cp::cli {

const std::vector<Command>& commands() {
    static const std::vector<Command> all = {
        {"list", "[--json]", "the kernel library", cmd_list},
        {"info", "[--json]", "backends, device, limits", cmd_info},
        {"compile", "FILE [options]", "NVRTC diagnostics and resource usage", cmd_compile},
        {"run", "FILE [options]", "run, time, verify, write outputs", cmd_run},
        {"sweep", "FILE [options]", "time the kernel over block shapes, with occupancy", cmd_sweep},
        {"debug", "FILE [--block X,Y,Z] [--break LINE]", "step through one block on the CPU: every thread's variables, shared memory", cmd_debug},
        {"describe", "FILE [--write]", "propose a header for a kernel pasted without one", cmd_describe},
        {"export", "LESSON [--out DIR] [--set N=V] | ASSIGNMENT --for-students", "the lesson as a standalone nvcc program with its CMakeLists.txt, or an assignment's students' copy", cmd_export},
        {"grade", "ASSIGNMENT SUBMISSIONS [--out DIR]", "run a class's submissions on an assignment's hidden cases", cmd_grade},
        {"worker", "--stdio [--backend NAME]", "serve kernels to an app using --remote (ssh, srun)", cmd_worker},
        {"script-serve", "[--backend NAME]", "serve a Python script's pycuda/cupy started by python3 itself", cmd_script_serve},
    };
    return all;
}

}  // namespace cp::cli
