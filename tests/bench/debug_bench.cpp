// cp_debug_bench: the step-through debugger's costs (issue 39; a benchmark that prints, asserts nothing). The
// library's shared-memory reduction (kernels/reduction/shared_memory_sum.cu) recorded whole for one block of 256 and
// of 1024 threads by `cuda-playground debug --json`: the recording launch's time, its rounds (one round: every
// thread of the block one statement further), the time per round, and the memory per recorded step and per round.
// Each size is recorded 3 times; the best time is printed.
// usage: cp_debug_bench [BINARY]
#include <algorithm>
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
    std::printf("%-10s %8s %8s %10s %12s %12s %12s\n", "block", "rounds", "steps", "record ms", "ms/round",
                "bytes/step", "KiB/round");
    for (int threads : {256, 1024}) {
        double best = 1e30;
        nlohmann::json j;
        for (int k = 0; k < 3; ++k) {
            const std::string out = run(binary + " debug reduction/shared_memory_sum --backend cpu --block-dim " +
                                        std::to_string(threads) + " --set n=" + std::to_string(threads * 4) +
                                        " --round 0 --threads 0 --json 2>&1");
            j = nlohmann::json::parse(out, nullptr, false);
            if (j.is_discarded() || !j.contains("ms")) {
                std::printf("%d threads: the debugger failed: %s\n", threads, out.substr(0, 400).c_str());
                return 1;
            }
            best = std::min(best, j["ms"].get<double>());
        }
        const double rounds = j["rounds"].get<double>(), steps = j["steps"].get<double>();
        const double bytes = j["recorded_bytes"].get<double>();
        std::printf("%-10d %8.0f %8.0f %10.1f %12.3f %12.1f %12.1f\n", threads, rounds, steps, best, best / rounds,
                    bytes / steps, bytes / rounds / 1024);
    }
    return 0;
}
