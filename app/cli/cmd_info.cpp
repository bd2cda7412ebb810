// `cuda-playground info`: the backends available here, the device, its limits; says plainly when there is no GPU.
#include "cli/args.h"
#include "cli/commands.h"
#include "core/engine/backend.h"
#include "core/engine/compiler_info.h"
#include "core/session/report_json.h"
#include "core/worker/sandbox.h"

#include <nlohmann/json.hpp>

#include <iomanip>
#include <iostream>

namespace cp::cli {

namespace {

const char* kUsage = R"(usage: cuda-playground info [--json]

Shows which backends can run kernels here (CUDA GPU, CPU emulation), the device's name, compute
capability, SM count, memory and launch limits, the NVRTC version used to compile, and what the sandbox for
kernel code and the compilers confines on this machine.

  --json    print the same as JSON
)";

void print_device(const DeviceInfo& d) {
    std::cout << "  device:        " << d.name << "\n";
    if (d.backend == BackendKind::Cuda) {
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

}  // namespace

int cmd_info(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {{"--json"}});
    if (!args) return user_error(args.error().message, args.error().hint);
    if (args->has("--help")) {
        std::cout << kUsage;
        return 0;
    }
    auto cuda = make_cuda_backend();
    auto cpu = make_cpu_backend();
    const std::string nvrtc = nvrtc_version_string();
    if (args->has("--json")) {
        using nlohmann::json;
        auto describe = [](auto& backend) {
            return backend ? json::parse(device_info_json((*backend)->info().device))
                           : json{{"available", false}, {"reason", backend.error().message}};
        };
        const SandboxSupport& sandbox = sandbox_support();
        json j{{"nvrtc", nvrtc},
               {"cuda", describe(cuda)},
               {"cpu", describe(cpu)},
               {"default_backend", cuda ? "cuda" : cpu ? "cpu" : "none"},
               {"sandbox",
                {{"seccomp_notify", sandbox.seccomp_notify},
                 {"landlock_abi", sandbox.landlock_abi},
                 {"kernel", sandbox.kernel_release},
                 {"summary", sandbox_summary(sandbox)}}}};
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::cout << "CUDA Playground " << CP_VERSION << "\n"
              << "NVRTC " << nvrtc << " (compiles kernels with or without a GPU)\n\n";
    std::cout << "CUDA backend: ";
    if (cuda) {
        std::cout << "available\n";
        print_device((*cuda)->info().device);
    } else {
        std::cout << "not available\n  reason:        " << cuda.error().message << "\n";
        if (!cuda.error().hint.empty()) std::cout << "  detail:        " << cuda.error().hint << "\n";
    }
    std::cout << "\nCPU backend: ";
    if (cpu) {
        std::cout << "available\n";
        print_device((*cpu)->info().device);
    } else {
        std::cout << "not available\n  reason:        " << cpu.error().message << "\n";
    }
    std::cout << "\nKernel files are untrusted input (Linux " << sandbox_support().kernel_release << "):\n";
    for (const std::string& line : sandbox_summary(sandbox_support())) std::cout << "  - " << line << "\n";
    std::cout << "\nDefault backend for `run` and the window: "
              << (cuda ? "cuda (GPU)" : cpu ? "cpu (no CUDA device here)" : "none: kernels can be compiled but not run")
              << "\n";
    return 0;
}

}  // namespace cp::cli
