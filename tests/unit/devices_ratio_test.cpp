// Ratios that mean something in a `devices:` split: with scripted device timings, the report's top lines (time,
// steps, bandwidth) are the split's, and a speed-up above the number of devices is flagged as not meaningful.
#include "core/session/device_split_check.h"
#include "core/session/session.h"
#include "scripted_backend.h"

#include <gtest/gtest.h>

namespace cp {
namespace {

using cp::test::ScriptedBackend;

// A scripted device whose launches take the given times (ms), as its own timer would report them.
class TimedDevice : public ScriptedBackend {
public:
    explicit TimedDevice(std::vector<double> samples) : samples_(std::move(samples)) {
        kernels["add"] = cp::test::vector_add;
    }
    LaunchResult launch(const LaunchRequest& req) override {
        LaunchResult r = ScriptedBackend::launch(req);
        r.timing = TimingStats::from_samples(samples_, false);
        return r;
    }

private:
    std::vector<double> samples_;
};

const char* kAdd = R"(/*@playground
title: Split add
param n: int = 100003
buffer a: float[n] in ramp(start=0, step=1)
buffer b: float[n] in constant(2)
buffer c: float[n] out
block: 256
grid: ceil(n / block.x)
devices: 2 over n
*/
extern "C" __global__ void add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
)";

TEST(DevicesRatio, TheTopLinesDescribeTheSplitNotTheOneDeviceBaseline) {
    const std::vector<double> first = {2.0, 1.5, 2.5}, second = {5.0, 4.0, 6.0, 5.5, 4.5};
    Engine engine(std::make_unique<TimedDevice>(first));
    KernelSession session(engine);
    KernelFile file = parse_kernel_source(kAdd, "add.cu");
    ASSERT_FALSE(has_errors(file.diagnostics));
    session.set_kernel(std::move(file));
    session.use_devices(2, [&second](int) -> Result<std::unique_ptr<Engine>> {
        return std::make_unique<Engine>(std::make_unique<TimedDevice>(second));
    });
    RunOptions options;
    const RunReport r = session.run(options);
    ASSERT_TRUE(r.ok()) << r.error->full();
    ASSERT_TRUE(r.device_split.has_value());
    const DeviceSplitReport& s = *r.device_split;
    ASSERT_EQ(s.parts.size(), 2u);
    EXPECT_TRUE(top_lines_are_split(s));

    // The one-device baseline is the first device's figures...
    const double first_median = TimingStats::from_samples(first, false).median_ms;
    const double second_median = TimingStats::from_samples(second, false).median_ms;
    EXPECT_DOUBLE_EQ(s.one_device.times.kernel_ms, first_median);
    // ...but the top lines are the split's: the parts ran at once, so its launch took the slowest part's time.
    const double split_median = std::max(first_median, second_median);
    EXPECT_DOUBLE_EQ(r.timing.median_ms, split_median);
    EXPECT_DOUBLE_EQ(r.transfers.kernel_ms, split_median);
    ASSERT_TRUE(r.resolved.has_value());
    const double bandwidth = double(r.resolved->traffic_bytes) / (split_median * 1e-3) / 1e9;
    EXPECT_DOUBLE_EQ(r.bandwidth_gbps, bandwidth);
    EXPECT_DOUBLE_EQ(r.bandwidth_fraction, bandwidth / (100.0 * 2));  // two devices' copy bandwidth (100 GB/s each)
    // Every part's bytes: a, b and c's starting contents uploaded and c read back, all n elements between them.
    const uint64_t n = 100003;
    EXPECT_EQ(r.transfers.upload_bytes, 3 * n * sizeof(float));
    EXPECT_EQ(r.transfers.download_bytes, n * sizeof(float));
    EXPECT_EQ(r.transfers.uploads, 3 * 2);
    EXPECT_EQ(r.transfers.downloads, 2);
    // And the output is the whole array, put together from the parts.
    const HostBuffer& c = r.outputs.at("c");
    ASSERT_EQ(c.count(), n);
    for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(c.as<float>()[i], float(i) + 2.0f) << i;

    // The figure from the devices' own times: first device alone against the slowest part.
    const double slowest = std::max(s.parts[0].times.total_ms(), s.parts[1].times.total_ms());
    EXPECT_DOUBLE_EQ(s.stage_speedup(), s.one_device.times.total_ms() / slowest);
}

DeviceSplitReport split_of(int parts, double one_device_ms, double split_ms) {
    DeviceSplitReport s;
    s.param = "n";
    s.gpu = true;
    s.parts.resize(size_t(parts));
    s.one_device_ms = one_device_ms;
    s.split_ms = split_ms;
    return s;
}

TEST(DevicesRatio, ASpeedUpAboveTheDeviceCountIsFlaggedAsNotMeaningful) {
    const DeviceSplitReport over = split_of(2, 27.1, 10.0);  // 2.71x on 2 GPUs, as seen on the H100s
    EXPECT_FALSE(speedup_meaningful(over));
    const std::string caveat = speedup_caveat(over);
    EXPECT_NE(caveat.find("2.71x on 2 GPUs is not a meaningful speed-up"), std::string::npos) << caveat;
    EXPECT_NE(caveat.find("at most 2x faster"), std::string::npos) << caveat;
    EXPECT_NE(caveat.find("a larger n"), std::string::npos) << caveat;

    // Up to the device count is a speed-up like any other.
    EXPECT_TRUE(speedup_meaningful(split_of(2, 19.0, 10.0)));
    EXPECT_TRUE(speedup_meaningful(split_of(2, 20.0, 10.0)));
    EXPECT_TRUE(speedup_meaningful(split_of(4, 35.0, 10.0)));
    EXPECT_FALSE(speedup_meaningful(split_of(4, 41.0, 10.0)));
    // One device: nothing to judge.
    EXPECT_TRUE(speedup_meaningful(split_of(1, 41.0, 10.0)));

    // The devices' own figures are judged too.
    DeviceSplitReport stage = split_of(2, 15.0, 10.0);
    stage.one_device.times.kernel_ms = 9.0;
    stage.parts[0].times.kernel_ms = 3.0;
    stage.parts[1].times.kernel_ms = 4.0;  // 9 / 4 = 2.25x > 2
    EXPECT_FALSE(speedup_meaningful(stage));
    EXPECT_NE(speedup_caveat(stage).find("2.25x"), std::string::npos) << speedup_caveat(stage);
}

}  // namespace
}  // namespace cp
