// `run`'s text for a `devices:` run: one row per device, the split's wall time against the first device alone.
#include "cli/commands.h"

#include "core/session/device_split_check.h"
#include "core/session/run_report.h"

#include <iomanip>
#include <iostream>

namespace cp::cli {

void print_device_split(const DeviceSplitReport& s) {
    std::cout << "  devices:  " << s.summary() << "\n";
    for (const DevicePart& p : s.parts) {
        const TransferTimes& t = p.times;
        std::cout << std::setprecision(4) << "            " << s.unit() << " " << p.ordinal << " [" << p.begin << ", "
                  << p.end << "): allocate " << t.allocate_ms << " ms, host->device " << t.upload_ms << " ms, kernel "
                  << t.kernel_ms << " ms, device->host " << t.download_ms << " ms; total " << t.total_ms() << " ms  ("
                  << p.name << "), grid " << p.grid.str() << "\n";
    }
    std::cout << std::setprecision(4) << "            split wall time " << s.split_ms << " ms, "
              << (s.parts.size() > 1 ? "one " + s.unit() + " alone " : std::string("the same run ")) << s.one_device_ms
              << " ms";
    if (s.parts.size() > 1)
        std::cout << std::setprecision(3) << ": " << s.speedup() << "x; by the devices' own times (one alone "
                  << s.one_device.times.total_ms() << " ms, slowest part " << s.slowest_part_ms() << " ms) "
                  << s.stage_speedup() << "x";
    if (s.parts.size() > 1 && !s.gpu)
        std::cout << " (CPU workers share this machine's cores: no GPU speed-up to expect)";
    std::cout << "\n";
    if (const std::string caveat = speedup_caveat(s); !caveat.empty()) std::cout << "            " << caveat << "\n";
    if (top_lines_are_split(s))
        std::cout << "            (the time, steps and bandwidth lines are the split's: its slowest " << s.unit()
                  << "'s launch, all " << s.unit() << "s' bytes)\n";
}

}  // namespace cp::cli
