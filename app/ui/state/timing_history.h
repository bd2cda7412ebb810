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
    StageTimes stages;     // the host's time per stage of that run (the frame budget)
    std::vector<StageRun> stage_runs;  // what that run redid and reused, and why
    double ui_apply_ms = 0;  // the window's part: the outcome applied (views by interop or upload, columns)
};

class TimingHistory {
public:
    explicit TimingHistory(size_t capacity = 300) : capacity_(capacity) {}
    void add(TimingSample s);
    void clear() { samples_.clear(); }
    const std::deque<TimingSample>& samples() const { return samples_; }
    const TimingSample* last() const { return samples_.empty() ? nullptr : &samples_.back(); }
    // The window's time to apply the last run, known only once it is applied.
    void set_last_ui_apply_ms(double ms) {
        if (!samples_.empty()) samples_.back().ui_apply_ms = ms;
    }

private:
    size_t capacity_;
    std::deque<TimingSample> samples_;
};

}  // namespace cp::ui
