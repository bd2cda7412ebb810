// A launch's timing figures from its samples (TimingStats, engine_api.h).
#include "core/engine/engine_api.h"

#include <algorithm>

namespace cp {

TimingStats TimingStats::from_samples(std::vector<double> samples, bool cpu_time) {
    TimingStats t;
    t.cpu_time = cpu_time;
    t.samples_ms = samples;
    if (samples.empty()) return t;
    std::sort(samples.begin(), samples.end());
    t.min_ms = samples.front();
    t.max_ms = samples.back();
    const size_t n = samples.size();
    t.median_ms = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
    return t;
}

}  // namespace cp
