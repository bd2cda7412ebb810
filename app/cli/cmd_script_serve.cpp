// `cuda-playground script-serve`: the playground's side of a Python script started by Python itself (the package in
// python/ installed into a virtual environment): the script's pycuda/cupy start this command and send their
// requests over its standard input and output (core/session/script_host.h). `run script.py` serves the same
// requests without it, and confines the script besides.
#include "cli/args.h"
#include "cli/commands.h"
#include "core/backends/registry.h"
#include "core/session/script_host.h"

#include <unistd.h>

#include <iostream>

namespace cp::cli {

namespace {

const char* kUsage = R"(usage: cuda-playground script-serve [--backend auto|cuda|cpu]

Serves one Python script's pycuda or cupy (CUDA Playground's, from its python/ folder) on standard input and
output: the script starts this command itself when it runs outside `cuda-playground run` (python3 script.py in a
virtual environment with the package installed). Not for typing by hand. The script's kernels run on the backend
named (CUDA_PLAYGROUND_BACKEND on the script's side); the script itself is not confined, as it is under `run`.

Exit status: 0 the script said goodbye, 1 no backend could be made or the connection broke.
)";

}  // namespace

int cmd_script_serve(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {{"--backend", true}});
    if (!args) return user_error(args.error());
    if (args->has("--help")) {
        std::cout << kUsage;
        return 0;
    }
    auto name = check_backend_name(args->get("--backend", "auto"));
    if (!name) return user_error(name.error());
    auto made = make_backend(*name);
    if (!made) return user_error(made.error());
    // The protocol owns standard output: anything else this process prints goes to standard error.
    const int wire_out = dup(1);
    dup2(2, 1);
    Engine engine(std::move(made->backend));
    ScriptServer server(engine, "");
    const bool goodbye = server.serve(0, wire_out);
    close(wire_out);
    return goodbye ? 0 : 1;
}

}  // namespace cp::cli
