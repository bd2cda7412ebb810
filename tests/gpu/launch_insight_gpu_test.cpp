// Seeing the launch on a real GPU (skips without a CUDA device): a traced 4K box blur with 16x16 blocks
// records exactly one block per grid block and uses every SM; the grid-too-small coverage count is exact;
// the occupancy figures computed from the device's properties equal cuOccupancyMaxActiveBlocksPerMultiprocessor.
#include "gpu_test_support.h"

#include "core/data/image_io.h"
#include "core/engine/occupancy.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/session.h"

#include <iostream>
#include <set>

namespace cp::gpu_test {
namespace {

std::filesystem::path uhd_photo() {
    auto photo = load_image(assets_dir() / "coffee.png");
    if (!photo) return {};
    const auto path = std::filesystem::temp_directory_path() / "cp-gpu-test-uhd.png";
    return save_png(path, resize_nearest(*photo, 3840, 2160)) ? path : std::filesystem::path();
}

KernelFile library_kernel(const std::string& name) {
    auto f = load_kernel_file(kernels_dir() / (name + ".cu"));
    EXPECT_TRUE(f.ok()) << name;
    return f.ok() ? *f : KernelFile{};
}

TEST(CudaLaunchInsight, Traced4kBlurUsesEverySmAndRecordsEveryBlockOnce) {
    if (auto why = cuda_unavailable()) GTEST_SKIP() << "no CUDA device: " << *why;
    auto backend = make_cuda_backend();
    ASSERT_TRUE(backend.ok()) << backend.error().message;
    Engine engine(std::move(*backend));
    KernelSession session(engine);
    session.set_kernel(library_kernel("image/box_blur"));
    const auto photo = uhd_photo();
    ASSERT_FALSE(photo.empty());
    RunChoices choices;
    choices.block = Dim3{16, 16, 1};
    ASSERT_TRUE(apply_set(session.kernel(), choices, "src", photo.string()).ok());
    session.set_choices(choices);
    RunOptions options;
    options.timing = {1, 10, false};
    options.trace = true;
    options.coverage = true;
    const RunReport r = session.run(options);
    ASSERT_TRUE(r.ok()) << r.error->full();
    EXPECT_TRUE(r.verified.value_or(false));
    ASSERT_TRUE(r.trace.has_value());
    const uint64_t blocks = r.resolved->grid.count();
    EXPECT_EQ(blocks, 240u * 135u);
    ASSERT_EQ(r.trace->blocks.size(), blocks);
    EXPECT_EQ(r.trace->unit, "sm");
    std::set<uint32_t> sms;
    for (uint64_t i = 0; i < blocks; ++i) {
        const BlockTrace& b = r.trace->blocks[i];
        ASSERT_GT(b.end_ns, 0u) << "block " << i << " recorded nothing";
        EXPECT_LE(b.start_ns, b.end_ns) << "block " << i;
        EXPECT_LT(b.unit, uint32_t(session.device().sm_count)) << "block " << i;
        sms.insert(b.unit);
    }
    EXPECT_EQ(int(sms.size()), session.device().sm_count) << "every SM of " << session.device().name << " ran blocks";
    ASSERT_EQ(r.coverage.size(), 1u);
    EXPECT_EQ(r.coverage[0].never_written, 0u);
    std::cout << "[gpu] traced 4K blur: " << blocks << " blocks on " << sms.size() << " SMs; plain median "
              << r.timing.median_ms << " ms, instrumented " << r.trace->timing.median_ms << " ms ("
              << r.trace->timing.median_ms / r.timing.median_ms << "x)\n";
}

TEST(CudaLaunchInsight, GridTooSmallCoverageIsExact) {
    if (auto why = cuda_unavailable()) GTEST_SKIP() << "no CUDA device: " << *why;
    auto backend = make_cuda_backend();
    ASSERT_TRUE(backend.ok()) << backend.error().message;
    Engine engine(std::move(*backend));
    KernelSession session(engine);
    session.set_kernel(library_kernel("basics/thread_ids"));
    RunChoices choices;
    choices.grid = Dim3{3, 2, 1};
    session.set_choices(choices);
    RunOptions options;
    options.coverage = true;
    const RunReport r = session.run(options);
    ASSERT_TRUE(r.ok()) << r.error->full();
    const Dim3 block = r.resolved->block;
    ASSERT_FALSE(r.coverage.empty());
    for (const CoverageMap& c : r.coverage) {
        // Independently: an element (x, y) of the problem is reached when x < 3 * block.x and y < 2 * block.y.
        const uint64_t w = r.resolved->problem.at(0), h = r.resolved->problem.size() > 1 ? r.resolved->problem[1] : 1;
        ASSERT_EQ(c.elements, w * h) << c.buffer;
        uint64_t expected = 0;
        for (uint64_t y = 0; y < h; ++y)
            for (uint64_t x = 0; x < w; ++x) expected += !(x < 3ull * block.x && y < 2ull * block.y);
        EXPECT_EQ(c.never_written, expected) << c.buffer;
    }
}

TEST(CudaLaunchInsight, OccupancyFiguresEqualTheDriversForManyBlockSizes) {
    if (auto why = cuda_unavailable()) GTEST_SKIP() << "no CUDA device: " << *why;
    auto backend = make_cuda_backend();
    ASSERT_TRUE(backend.ok()) << backend.error().message;
    Engine engine(std::move(*backend));
    const std::vector<int> sizes = {32, 64, 96, 128, 160, 192, 256, 320, 384, 512, 640, 768, 896, 1024};
    for (const KernelFile& file : scan_library(kernels_dir())) {
        KernelSession session(engine);
        session.set_kernel(file);
        auto answer = session.suggest_block(sizes);
        ASSERT_TRUE(answer.ok()) << file.path << ": " << answer.error().full();
        ASSERT_EQ(answer->active_blocks.size(), sizes.size());
        const ResourceUsage usage = session.compile().usage;
        const uint32_t shared = session.resolve()->dynamic_shared_bytes;
        for (size_t i = 0; i < sizes.size(); ++i) {
            const OccupancyFigures f = occupancy_for_block(session.device(), usage, shared, sizes[i]);
            if (usage.max_threads_per_block > 0 && sizes[i] > usage.max_threads_per_block) {
                // The driver still answers for a block the kernel cannot launch with (its __launch_bounds__);
                // we say none fit, and why.
                EXPECT_EQ(f.blocks_per_sm, 0) << file.path.filename() << " at " << sizes[i];
                EXPECT_NE(f.limited_by.find("more threads than the kernel can launch"), std::string::npos);
                continue;
            }
            EXPECT_EQ(f.blocks_per_sm, answer->active_blocks[i])
                << file.path.filename() << " at " << sizes[i] << " threads (" << usage.registers << " registers, "
                << usage.static_shared_bytes << "+" << shared << " B shared; ours limited by " << f.limited_by << ")";
        }
    }
}

}  // namespace
}  // namespace cp::gpu_test
