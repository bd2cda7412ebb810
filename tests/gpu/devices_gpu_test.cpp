// `devices: all over n` on real GPUs (skips without a CUDA device): the split lesson on every GPU of the machine,
// one CUDA worker process each, its assembled output compared element by element with 3·x computed here, the parts
// tiling [0, n); per-device timings and the speed-up printed at the lesson's size and at 2^26 + 3 elements.
#include "core/cuda/cuda_backend_factory.h"
#include "core/data/buffer_init.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/device_split_check.h"
#include "core/session/session.h"

#include <gtest/gtest.h>

#include <iostream>
#include "test_paths.h"
#include "core/backends/registry.h"

using namespace cp;

namespace {

// The session with every GPU of the machine, each opened as the CLI and the window open them.
struct AllGpus {
    std::unique_ptr<Engine> engine;
    std::unique_ptr<KernelSession> session;
};

void print_split(const RunReport& r) {
    const DeviceSplitReport& s = *r.device_split;
    std::cout << "[gpu] n=" << s.total << ": " << s.summary() << "\n";
    for (const DevicePart& p : s.parts)
        std::cout << "[gpu]   GPU " << p.ordinal << " " << p.name << " [" << p.begin << ", " << p.end << "): allocate "
                  << p.times.allocate_ms << " ms, h->d " << p.times.upload_ms << " ms, kernel " << p.times.kernel_ms
                  << " ms, d->h " << p.times.download_ms << " ms, total " << p.times.total_ms() << " ms\n";
    std::cout << "[gpu]   split wall " << s.split_ms << " ms, one GPU alone " << s.one_device_ms << " ms (its total "
              << s.one_device.times.total_ms() << " ms, kernel " << s.one_device.times.kernel_ms << " ms), speed-up "
              << s.speedup() << "x\n";
    if (!speedup_meaningful(s)) std::cout << "[gpu]   " << speedup_caveat(s) << "\n";
    std::cout << "[gpu]   top lines (" << (top_lines_are_split(s) ? "the split" : "one device") << "): median "
              << r.timing.median_ms << " ms, bandwidth " << r.bandwidth_gbps << " GB/s\n";
}

}  // namespace

TEST(GpuDevices, TheSplitLessonRunsOnEveryGpuAndItsOutputIsRight) {
    auto backend = make_cuda_backend(0);
    if (!backend) GTEST_SKIP() << "no CUDA device, GPU test skipped: " << backend.error().message;
    AllGpus g;
    g.engine = std::make_unique<Engine>(std::move(*backend));
    const int count = g.engine->device().device_count;
    EXPECT_GE(count, 1);
    EXPECT_EQ(g.engine->device().ordinal, 0);
    std::cout << "[gpu] " << count << " GPU(s) here\n";
    g.session = std::make_unique<KernelSession>(*g.engine);
    g.session->use_devices(count, [](int ordinal) -> Result<std::unique_ptr<Engine>> {
        auto other = make_backend("cuda", ordinal);
        if (!other) return other.error();
        return std::make_unique<Engine>(std::move(other->backend));
    });
    auto file = load_kernel_file(std::string(CP_SOURCE_DIR) + "/kernels/multigpu/split_across_gpus.cu");
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE(file->spec.devices.enabled());
    const BufferSpec x_spec = *file->buffer("x");
    g.session->set_kernel(*file);

    for (const char* n_text : {"1000003", "67108867"}) {
        ASSERT_TRUE(g.session->set_param("n", n_text).ok());
        RunOptions options;
        options.timing.repeats = 10;
        const RunReport r = g.session->run(options);
        ASSERT_TRUE(r.ok()) << r.error->full();
        EXPECT_EQ(r.backend, "cuda");
        EXPECT_EQ(r.verified, std::optional<bool>(true)) << r.mismatch_detail;
        ASSERT_TRUE(r.device_split.has_value());
        const DeviceSplitReport& s = *r.device_split;
        EXPECT_TRUE(s.gpu);
        EXPECT_EQ(s.devices_here, count);
        ASSERT_EQ(int(s.parts.size()), count) << "one part per GPU";
        const uint64_t n = std::stoull(n_text);
        uint64_t next = 0;
        for (size_t k = 0; k < s.parts.size(); ++k) {
            EXPECT_EQ(s.parts[k].ordinal, int(k));
            EXPECT_EQ(s.parts[k].begin, next);
            EXPECT_EQ(s.parts[k].end, n * (k + 1) / uint64_t(count));
            EXPECT_GT(s.parts[k].times.kernel_ms, 0.0);
            next = s.parts[k].end;
        }
        EXPECT_EQ(next, n);
        // Independently of the in-file reference: y = 3x, x filled as the lesson's header says.
        HostBuffer x{"x", x_spec.type, std::vector<std::byte>(n * sizeof(float))};
        ASSERT_TRUE(fill_buffer(x_spec, x, nullptr).ok());
        const HostBuffer& y = r.outputs.at("y");
        ASSERT_EQ(y.count(), n);
        for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(y.as<float>()[i], 3.0f * x.as<float>()[i]) << "y[" << i << "]";
        print_split(r);
    }
}

TEST(GpuDevices, ADeviceTheMachineDoesNotHaveIsRefusedInPlainWords) {
    auto backend = make_cuda_backend(0);
    if (!backend) GTEST_SKIP() << "no CUDA device, GPU test skipped: " << backend.error().message;
    Engine engine(std::move(*backend));
    const int count = engine.device().device_count;
    auto missing = make_cuda_backend(count);
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message.find("there is no CUDA device " + std::to_string(count) + ": this machine has " +
                                           std::to_string(count)),
              std::string::npos)
        << missing.error().message;
}
