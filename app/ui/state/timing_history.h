// Timing samples of past runs, each with the launch configuration it came from (Timing panel).
#pragma once

#include "core/engine/engine_api.h"
#include "core/session/run_report.h"

#include <cstddef>
#include <deque>
#include <optional>
#include <string>

namespace cp::ui {

struct TimingSample {
    uint64_t run = 0;        // sequence number of the run
    std::string kernel;      // title
    Dim3 grid, block;
    uint32_t dynamic_shared_bytes = 0;
    std::string params;      // "width=3840 height=2160"
    TimingStats stats;
    TransferTimes transfers;  // allocation, host->device, kernel, device->host of that run
    double bandwidth_gbps = 0;
    double bandwidth_fraction = 0;
    std::string backend;
    std::optional<DeviceSplitReport> devices;  // a `devices:` run: each device's part and times
};

class TimingHistory {
public:
    explicit TimingHistory(size_t capacity = 300) : capacity_(capacity) {}
    void add(TimingSample s);
    void clear() { samples_.clear(); }
    const std::deque<TimingSample>& samples() const { return samples_; }
    const TimingSample* last() const { return samples_.empty() ? nullptr : &samples_.back(); }

private:
    size_t capacity_;
    std::deque<TimingSample> samples_;
};

}  // namespace cp::ui
