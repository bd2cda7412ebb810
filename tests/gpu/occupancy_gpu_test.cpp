// The occupancy request on a real GPU (skips without a CUDA device): the worker backend's answer for the
// library's box blur and vector add matches a direct cuOccupancyMaxPotentialBlockSize call on the same
// cubin, made in a forked child so that this test process never initialises CUDA itself.
#include "gpu_test_support.h"

#include "core/cuda/cuda_driver.h"
#include "core/toolkit/nvrtc_compiler.h"
#include "core/kernel_file/kernel_file.h"
#include "core/engine/occupancy.h"
#include "core/session/session.h"

#include <cstdio>
#include <iostream>

namespace cp::gpu_test {
namespace {

// Compiles `file` for this device and asks the driver directly; prints "block=B min_grid=G active=A".
[[noreturn]] void direct_occupancy_query(const KernelFile& file, uint32_t dynamic_shared_bytes) {
    auto fail = [](const std::string& why) {
        std::fprintf(stderr, "direct query failed: %s", why.c_str());
        std::exit(1);
    };
    std::string why;
    const CudaDriver* d = cuda_driver(&why);
    if (!d) fail(why);
    CUdevice dev = 0;
    CUcontext ctx = nullptr;
    if (d->Init(0) != CUDA_SUCCESS || d->DeviceGet(&dev, 0) != CUDA_SUCCESS ||
        d->DevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS || d->CtxSetCurrent(ctx) != CUDA_SUCCESS)
        fail("no context");
    if (!d->OccupancyMaxPotentialBlockSize || !d->OccupancyMaxActiveBlocksPerMultiprocessor) fail("no occupancy API");
    CompileRequest c;
    c.source = file.source;
    c.path = file.path.string();
    c.kernel_name = file.signature->name;
    std::vector<std::byte> image;
    std::string lowered;
    const std::string arch = cuda_device_arch();
    const CompileResult compiled = compile_with_nvrtc(c, arch.empty() ? kArchWithoutDevice : arch, &image, &lowered);
    if (!compiled.ok) fail("compile failed: " + compiled.log);
    CUmodule module = nullptr;
    CUfunction fn = nullptr;
    if (d->ModuleLoadDataEx(&module, image.data(), 0, nullptr, nullptr) != CUDA_SUCCESS ||
        d->ModuleGetFunction(&fn, module, lowered.c_str()) != CUDA_SUCCESS)
        fail("load failed");
    int min_grid = 0, block = 0, active = 0;
    if (d->OccupancyMaxPotentialBlockSize(&min_grid, &block, fn, nullptr, dynamic_shared_bytes, 0) != CUDA_SUCCESS ||
        d->OccupancyMaxActiveBlocksPerMultiprocessor(&active, fn, block, dynamic_shared_bytes) != CUDA_SUCCESS)
        fail("query failed");
    std::fprintf(stderr, "block=%d min_grid=%d active=%d", block, min_grid, active);
    std::exit(0);
}

KernelFile occupancy_lesson(const std::string& name) {
    auto f = load_kernel_file(kernels_dir() / (name + ".cu"));
    EXPECT_TRUE(f.ok()) << name;
    return f.ok() ? *f : KernelFile{};
}

TEST(CudaOccupancyDeathTest, WorkerAnswerMatchesADirectDriverQuery) {
    if (auto why = cuda_unavailable()) GTEST_SKIP() << "no CUDA device: " << *why;
    auto backend = make_cuda_backend();
    ASSERT_TRUE(backend.ok()) << backend.error().message;
    Engine engine(std::move(*backend));
    const DeviceInfo device = engine.info().device;
    for (const char* name : {"image/box_blur", "basics/vector_add"}) {
        const KernelFile file = occupancy_lesson(name);
        ASSERT_TRUE(file.signature.has_value()) << name;
        KernelSession session(engine);
        session.set_kernel(file);
        auto r = session.suggest_block();
        ASSERT_TRUE(r.ok()) << name << ": " << r.error().full();
        EXPECT_GT(r->block_size, 0) << name;
        EXPECT_LE(r->block_size, 1024) << name;
        EXPECT_EQ(r->block_size % 32, 0) << name;
        EXPECT_GE(r->active_blocks_per_sm, 1) << name;
        EXPECT_GT(r->occupancy, 0.0) << name;
        EXPECT_LE(r->occupancy, 1.0) << name;
        EXPECT_EQ(r->method, "cuOccupancyMaxPotentialBlockSize") << name;
        EXPECT_EQ(r->min_grid_size, r->active_blocks_per_sm * device.sm_count) << name;
        // The estimate from resource usage, for comparison (it should agree on light kernels like these).
        const BlockSuggestion estimate =
            estimate_best_block(device, session.compile().usage, session.resolve()->dynamic_shared_bytes, 1);
        std::cout << "[gpu] occupancy of " << name << " on " << device.name << ": block " << r->block_size << ", "
                  << r->active_blocks_per_sm << " blocks/SM, " << r->occupancy * 100 << "% occupancy, min grid "
                  << r->min_grid_size << " (" << session.compile().usage.registers << " registers; estimate: "
                  << estimate.threads << " threads, " << estimate.occupancy * 100 << "%)\n";
        EXPECT_NEAR(r->occupancy, estimate.occupancy, 1e-9) << name << ": the API and the estimate disagree";

        const std::string expected = "block=" + std::to_string(r->block_size) + " min_grid=" +
                                     std::to_string(r->min_grid_size) + " active=" +
                                     std::to_string(r->active_blocks_per_sm);
        EXPECT_EXIT(direct_occupancy_query(file, session.resolve()->dynamic_shared_bytes),
                    ::testing::ExitedWithCode(0), expected)
            << name;
    }
}

}  // namespace
}  // namespace cp::gpu_test
