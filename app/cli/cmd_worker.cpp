// `cuda-playground worker --stdio`: the server side of --remote. Serves the engine protocol on standard input
// and output for an app on another machine (started by ssh, srun, kubectl exec...): core/remote/remote_backend.h.
#include "cli/args.h"
#include "cli/commands.h"
#include "core/backends/registry.h"
#include "core/remote/remote_backend.h"

#include <iostream>

namespace cp::cli {

namespace {

const char* kWorkerUsage = R"(usage: cuda-playground worker --stdio [--backend auto|cuda|cpu] [--sanitize TOOL]

Serves kernels to CUDA Playground on another machine: the app runs `PREFIX cuda-playground worker --stdio`
(`--remote PREFIX`, e.g. --remote "ssh gpu01") and sends its requests over this command's standard input
and output. Not for typing by hand. It opens no port: authentication and transport are those of the command
that started it (ssh, srun, kubectl exec). Kernels run as locally: CUDA in a worker process replaced after a
fault, the CPU emulator in its sandbox.

  --stdio          serve on standard input/output (the only transport)
  --backend NAME   the backend to serve: auto (default: the first that works here), cuda or cpu
  --sanitize TOOL  run the kernels under this server's compute-sanitizer (memcheck, racecheck, synccheck,
                   initcheck) and send its log back when the app closes the connection (`run --sanitize
                   TOOL --remote PREFIX` asks for it)

The server's limits, when /etc/cuda-playground/worker.conf exists (or CUDA_PLAYGROUND_WORKER_LIMITS=FILE):
`key = value` lines with device_memory_mb (per worker), launch_timeout_s (the most a launch may run),
max_workers_per_user (workers of one account at once) and runtime_dir (where they are counted).

Exit status: 0 the app closed the connection, 1 the handshake failed (another build, the server's limits) or no backend can run.
)";

}  // namespace

int cmd_worker(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {{"--stdio"}, {"--backend", true}, {"--sanitize", true}});
    if (!args) return user_error(args.error());
    if (args->has("--help")) {
        std::cout << kWorkerUsage;
        return 0;
    }
    if (!args->has("--stdio"))
        return user_error("`worker` needs --stdio",
                          "it is started by `cuda-playground --remote PREFIX` on the app's machine");
    if (!args->positional.empty()) return user_error("unexpected argument `" + args->positional[0] + "`", "see --help");
    auto backend = check_backend_name(args->get("--backend", "auto"));
    if (!backend) return user_error(backend.error());
    ServedBackends served;
    for (const BackendEntry& e : backend_registry()) served.names.push_back(e.name);
    served.make = [](const std::string& name) -> Result<std::unique_ptr<Backend>> {
        auto made = make_backend(name);
        if (!made) return made.error();
        return std::move(made->backend);
    };
    served.make_sanitized = make_served_sanitized_backend;
    return serve_stdio(served, *backend, args->get("--sanitize"));
}

}  // namespace cp::cli
