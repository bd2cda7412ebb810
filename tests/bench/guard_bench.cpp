// Guard zones' cost per launch (issue 10, item 2): every library kernel run on the CUDA backend with the
// zones off and on (CUDA_PLAYGROUND_GUARDS=0/1, read when each worker starts its buffers), the median wall
// time of one run (upload + launch + guard check, no read-back) and the difference. Without a GPU it times
// the host half of the check (pattern compare of two 4 KiB zones per buffer) and says the GPU part is skipped.
#include "core/cuda/guard_zones.h"
#include "core/engine/backend.h"
#include "core/engine/engine.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/session.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include "test_paths.h"
#include "core/backends/registry.h"

using namespace cp;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

// Median milliseconds of one run of each library kernel, on a fresh CUDA worker with guards on or off.
std::map<std::string, double> time_library(bool guards, int runs) {
    ::setenv("CUDA_PLAYGROUND_GUARDS", guards ? "1" : "0", 1);
    std::map<std::string, double> out;
    auto made = make_backend("cuda");
    if (!made) return out;
    Engine engine(std::move(made->backend));
    for (KernelFile& file : scan_library(std::filesystem::path(CP_SOURCE_DIR) / "kernels")) {
        const std::string name = file.path.parent_path().filename().string() + "/" + file.path.stem().string();
        KernelSession session(engine);
        session.set_kernel(std::move(file));
        RunOptions options;
        options.timing = {0, 1, false};
        options.read_back = false;
        options.verify = false;
        if (session.run(options).error) continue;  // first run: compile and allocate
        std::vector<double> ms;
        for (int i = 0; i < runs; ++i) {
            const auto t0 = Clock::now();
            const RunReport r = session.run(options);
            ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
            if (r.error) break;
        }
        out[name] = median(ms);
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 30;
    // Host half of the check: compare two zones with their pattern.
    {
        const GuardLayout l = guard_layout(1000003 * 4);
        const auto front = guard_pattern(GuardSide::Front, l.front);
        const auto back = guard_pattern(GuardSide::Back, l.back);
        const int n = 20000;
        const auto t0 = Clock::now();
        int found = 0;
        for (int i = 0; i < n; ++i) {
            found += bool(check_guard(GuardSide::Front, front.data(), front.size(), l.data, 4));
            found += bool(check_guard(GuardSide::Back, back.data(), back.size(), l.data, 4));
        }
        const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / n;
        std::printf("host-side check of one buffer's two zones (%llu + %llu bytes): %.2f us%s\n",
                    static_cast<unsigned long long>(l.front), static_cast<unsigned long long>(l.back), us,
                    found ? " (BUG: clean zones reported)" : "");
    }
    auto probe = make_backend("cuda");
    if (!probe) {
        std::printf("no CUDA device here (%s): the per-launch GPU cost is measured on a GPU machine\n",
                    probe.error().message.c_str());
        return 0;
    }
    probe->backend.reset();
    const auto off = time_library(false, runs);
    const auto on = time_library(true, runs);
    std::printf("\n%-36s %12s %12s %12s\n", "kernel (median of one run, ms)", "guards off", "guards on", "cost (us)");
    std::vector<double> costs;
    for (const auto& [name, t_off] : off) {
        auto it = on.find(name);
        if (it == on.end()) continue;
        costs.push_back((it->second - t_off) * 1000);
        std::printf("%-36s %12.3f %12.3f %12.1f\n", name.c_str(), t_off, it->second, costs.back());
    }
    std::printf("\nguard cost per launch: median %.1f us over %zu kernels (setup is once per allocation)\n",
                median(costs), costs.size());
    return 0;
}
