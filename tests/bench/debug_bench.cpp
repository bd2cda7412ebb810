// cp_debug_bench: the step-through debugger's costs (issue 39; a benchmark that prints, asserts nothing). The
// library's shared-memory reduction (kernels/reduction/shared_memory_sum.cu) recorded whole for one block of 256 and
// of 1024 threads by `cuda-playground debug --json`: the recording launch's time, its rounds (one round: every
// thread of the block one statement further), the time per round, and the memory per recorded step and per round;
// then the register-blocked multiply (kernels/matrix/matmul_register_blocked.cu, 256 threads with 64-float arrays),
// whose block reaches the recording's cap. "whole ms": the command from start to its JSON, the recording's trip
// from the CPU worker's process to the app included. Each is recorded 3 times; the best times are printed.
// usage: cp_debug_bench [BINARY]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "test_paths.h"

namespace {

std::string run(const std::string& command) {
    std::string out;
    if (FILE* p = popen(command.c_str(), "r")) {
        char buffer[65536];
        size_t n;
        while ((n = fread(buffer, 1, sizeof buffer, p)) > 0) out.append(buffer, n);
        pclose(p);
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string binary = argc > 1 ? argv[1] : CP_BINARY;
    std::printf("%-22s %8s %8s %10s %12s %12s %12s %10s\n", "block", "rounds", "steps", "record ms", "ms/round",
                "bytes/step", "KiB/round", "whole ms");
    struct Row {
        std::string label, args;
    };
    const Row rows[] = {
        {"reduction, 256", "reduction/shared_memory_sum --block-dim 256 --set n=1024"},
        {"reduction, 1024", "reduction/shared_memory_sum --block-dim 1024 --set n=4096"},
        {"register-blocked, 256", "matrix/matmul_register_blocked"},
    };
    for (const Row& row : rows) {
        double best = 1e30, best_whole = 1e30;
        nlohmann::json j;
        for (int k = 0; k < 3; ++k) {
            const auto started = std::chrono::steady_clock::now();
            const std::string out =
                run(binary + " debug " + row.args + " --backend cpu --round 0 --threads 0 --json 2>&1");
            best_whole = std::min(
                best_whole, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count());
            j = nlohmann::json::parse(out, nullptr, false);
            if (j.is_discarded() || !j.contains("ms")) {
                std::printf("%s: the debugger failed: %s\n", row.label.c_str(), out.substr(0, 400).c_str());
                return 1;
            }
            best = std::min(best, j["ms"].get<double>());
        }
        const double rounds = j["rounds"].get<double>(), steps = j["steps"].get<double>();
        const double bytes = j["recorded_bytes"].get<double>();
        std::printf("%-22s %8.0f %8.0f %10.1f %12.3f %12.1f %12.1f %10.0f%s\n", row.label.c_str(), rounds, steps, best,
                    best / rounds, bytes / steps, bytes / rounds / 1024, best_whole,
                    j.value("truncated", false) ? "  (cut at the cap)" : "");
    }
    return 0;
}
