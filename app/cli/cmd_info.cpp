// `cuda-playground info`: the backends available here, the device, its limits; says plainly when there is no GPU.
#include "cli/args.h"
#include "cli/commands.h"
#include "core/engine/backend.h"
#include "core/engine/device_info_json.h"
#include "core/toolkit/nvrtc_compiler.h"
#include "core/remote/remote_backend.h"
#include "core/session/report_json.h"
#include "core/worker/sandbox.h"
#include "core/backends/registry.h"

#include <nlohmann/json.hpp>

#include <iomanip>
#include <iostream>

namespace cp::cli {

namespace {

const char* kInfoUsage = R"(usage: cuda-playground info [--json] [--remote PREFIX [--backend NAME]]

Shows which backends can run kernels here (each backend the app knows), the device's name, compute
capability, SM count, memory and launch limits, the NVRTC version used to compile, and what the sandbox for
kernel code and the compilers confines on this machine.

  --json            print the same as JSON (docs/schema/info.schema.json)
  --remote PREFIX   show the server's instead: what `PREFIX cuda-playground worker --stdio --backend NAME`
                    runs kernels on (also CUDA_PLAYGROUND_REMOTE; the remote program's path:
                    CUDA_PLAYGROUND_REMOTE_PROGRAM)
  --backend NAME    with --remote: the backend the server is asked for (default auto)

Exit status: 0 shown (also when no backend can run kernels), 1 a mistake in the command,
3 an internal error (a bug: please report it).
)";

void print_device(const DeviceInfo& d) {
    std::cout << "  device:        " << d.name << "\n";
    if (d.device_count > 1)  // what a `devices:` file would split over
        std::cout << "  devices:       " << d.device_count << " (this is device " << d.ordinal << ")\n";
    if (d.caps.gpu) {
        std::cout << "  compute cap.:  " << d.cc_major << "." << d.cc_minor << " (" << d.arch << ")\n"
                  << "  SMs:           " << d.sm_count << "\n"
                  << "  memory:        " << (d.total_memory >> 20) << " MiB\n"
                  << "  L2 cache:      " << (d.l2_bytes >> 10) << " KiB\n"
                  << "  driver:        " << d.driver_version << "\n";
        if (d.copy_bandwidth_gbps > 0)
            std::cout << "  copy bandwidth: " << std::fixed << std::setprecision(0) << d.copy_bandwidth_gbps
                      << " GB/s (measured device-to-device)\n";
    }
    std::cout << "  limits:        " << d.max_threads_per_block << " threads/block, block " << d.max_block.str()
              << ", grid " << d.max_grid.str() << "\n"
              << "                 " << d.max_shared_per_block / 1024 << " KiB shared/block ("
              << d.max_shared_per_block_optin / 1024 << " KiB opt-in), " << d.regs_per_block
              << " registers/block, warp " << d.warp_size << "\n";
    if (!d.notes.empty()) std::cout << "  note:          " << d.notes << "\n";
}

// `info --remote PREFIX`: the server's backend and device, and where that is. 1 when it cannot be reached.
int show_remote(const LaunchOptions& launch, bool as_json) {
    RemoteOptions options = remote_options_from_environment(launch.backend);
    options.prefix = launch.remote;
    auto backend = make_remote_backend(options);
    if (as_json) {
        using nlohmann::json;
        json j{
            {"schema_version", kInfoSchemaVersion}, {"nvrtc", nvrtc_version_text()}, {"remote_command", launch.remote}};
        if (backend) {
            const DeviceInfo device = (*backend)->info().device;
            j["where"] = device.where;
            j["default_backend"] = device.backend;
            j[device.backend] = device_info_to_json(device);
            j[device.backend]["available"] = true;
        } else {
            j["where"] = nullptr;
            j["default_backend"] = "none";
            j["remote"] = json{{"available", false}, {"reason", backend.error().message}, {"hint", backend.error().hint}};
        }
        std::cout << json_text(j) << "\n";
        return backend ? 0 : 1;
    }
    if (!backend) return user_error(backend.error());
    const DeviceInfo device = (*backend)->info().device;
    std::cout << "CUDA Playground " << CP_VERSION << "\n"
              << "kernels run on a server: " << device.where << "\n\n"
              << device.backend << " backend (remote): available\n";
    print_device(device);
    return 0;
}

}  // namespace

int cmd_info(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {{"--json"}, {"--remote", true}, {"--backend", true}});
    if (!args) return user_error(args.error());
    if (args->has("--help")) {
        std::cout << kInfoUsage;
        return 0;
    }
    auto launch = parse_launch_options(*args);
    if (!launch) return user_error(launch.error());
    if (!launch->remote.empty()) return show_remote(*launch, args->has("--json"));
    if (args->has("--backend")) return user_error("--backend needs --remote here", "`info` shows every backend of this machine");
    struct Probe {
        const BackendEntry* entry;
        Result<std::unique_ptr<Backend>> backend;
    };
    std::vector<Probe> probes;
    for (const BackendEntry& e : backend_registry()) probes.push_back({&e, e.make()});
    std::string default_backend = "none";
    for (const Probe& p : probes)
        if (p.backend && default_backend == "none") default_backend = p.entry->name;
    const std::string nvrtc = nvrtc_version_text();
    if (args->has("--json")) {
        using nlohmann::json;
        const SandboxSupport& sandbox = sandbox_support();
        json j{{"schema_version", kInfoSchemaVersion},
               {"nvrtc", nvrtc},
               {"default_backend", default_backend},
               {"sandbox",
                {{"seccomp_notify", sandbox.seccomp_notify},
                 {"landlock_abi", sandbox.landlock_abi},
                 {"kernel", sandbox.kernel_release},
                 {"summary", sandbox_summary(sandbox)}}}};
        for (const Probe& p : probes) {
            json d = p.backend ? device_info_to_json((*p.backend)->info().device)
                               : json{{"available", false}, {"reason", p.backend.error().message}};
            if (p.backend) d["available"] = true;
            d["description"] = p.entry->description;
            j[p.entry->name] = d;
        }
        std::cout << json_text(j) << "\n";
        return 0;
    }
    std::cout << "CUDA Playground " << CP_VERSION << "\n"
              << "NVRTC " << nvrtc << " (compiles kernels with or without a GPU)\n";
    for (const Probe& p : probes) {
        std::cout << "\n" << p.entry->name << " backend: " << (p.backend ? "available" : "not available") << "\n"
                  << "  what:          " << p.entry->description << "\n";
        if (p.backend) {
            print_device((*p.backend)->info().device);
        } else {
            std::cout << "  reason:        " << p.backend.error().message << "\n";
            if (!p.backend.error().hint.empty()) std::cout << "  detail:        " << p.backend.error().hint << "\n";
        }
    }
    std::cout << "\nKernel files are untrusted input (Linux " << sandbox_support().kernel_release << "):\n";
    for (const std::string& line : sandbox_summary(sandbox_support())) std::cout << "  - " << line << "\n";
    std::cout << "\nDefault backend for `run` and the window: "
              << (default_backend == "none" ? "none: kernels can be compiled but not run" : default_backend) << "\n";
    return 0;
}

}  // namespace cp::cli
