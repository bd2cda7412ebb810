// The occupancy estimate (hand-computed cases on H100-like limits), block shapes per dimensionality, and
// the CPU backend's answer to an occupancy request (hand-computed on its CUDA-like limits).
#include "cpu_backend_rig.h"

#include "core/engine/occupancy.h"

namespace cp::test {
namespace {

DeviceInfo h100_limits() {
    DeviceInfo d;
    d.cc_major = 9;
    d.max_shared_per_sm = 228 * 1024;
    return d;
}

TEST(OccupancyEstimate, RespectsRegistersSharedMemoryAndShape) {
    const DeviceInfo h100 = h100_limits();
    ResourceUsage light;
    light.registers = 28;
    const auto a = estimate_best_block(h100, light, 0, 2);
    EXPECT_DOUBLE_EQ(a.occupancy, 1.0);
    EXPECT_EQ(a.threads, 1024);
    EXPECT_EQ(a.block, (Dim3{32, 32, 1}));

    ResourceUsage heavy;
    heavy.registers = 128;  // 4096 registers per warp: at most 16 warps per block and per SM
    const auto b = estimate_best_block(h100, heavy, 0, 1);
    EXPECT_EQ(b.threads, 512);
    EXPECT_DOUBLE_EQ(b.occupancy, 0.25);
    EXPECT_EQ(b.limited_by, "registers");
    EXPECT_EQ(b.block, (Dim3{512, 1, 1}));

    ResourceUsage some;
    some.registers = 16;
    // 48 KiB static shared: 4 blocks fit by shared memory, so 1024-thread blocks (2 per SM) keep full occupancy.
    some.static_shared_bytes = 48 * 1024;
    const auto c = estimate_best_block(h100, some, 0, 1);
    EXPECT_EQ(c.threads, 1024);
    EXPECT_DOUBLE_EQ(c.occupancy, 1.0);
    // 120 KiB of dynamic shared memory more: one block per SM, whatever its size; the biggest wins.
    const auto d = estimate_best_block(h100, some, 120 * 1024, 1);
    EXPECT_EQ(d.blocks_per_sm, 1);
    EXPECT_EQ(d.limited_by, "shared memory");
    EXPECT_EQ(d.threads, 1024);
    EXPECT_DOUBLE_EQ(d.occupancy, 0.5);
}

TEST(OccupancyEstimate, RegistersAreSharedOutPerSubPartition) {
    // 96 registers per thread = 3072 per warp. A sub-partition's 16384 registers hold 5 such warps, so an SM
    // holds 20 (not 65536 / 3072 = 21): 20 one-warp blocks, 6 three-warp blocks. The H100's driver
    // (cuOccupancyMaxActiveBlocksPerMultiprocessor) gave 20 and 6 for the register-blocked matmul.
    ResourceUsage regs96;
    regs96.registers = 96;
    EXPECT_EQ(occupancy_for_block(h100_limits(), regs96, 0, 32).blocks_per_sm, 20);
    EXPECT_EQ(occupancy_for_block(h100_limits(), regs96, 0, 96).blocks_per_sm, 6);
    EXPECT_EQ(occupancy_for_block(h100_limits(), regs96, 0, 96).limited_by, "registers");
    // 255 registers: a 256-thread block (8 warps) needs 8 x 8192 = all 65536 registers: one block.
    ResourceUsage regs255;
    regs255.registers = 255;
    EXPECT_EQ(occupancy_for_block(h100_limits(), regs255, 0, 256).blocks_per_sm, 1);
    // 224 threads = 7 warps, counted as 8 by the per-block check: 8 x 8192 still fits, so 1 block.
    EXPECT_EQ(occupancy_for_block(h100_limits(), regs255, 0, 224).blocks_per_sm, 1);
}

TEST(OccupancyEstimate, BlockSizeLimitCapsTheSearch) {
    // At most 200 threads: 192 (6 warps) fits 10 blocks = 60 of 64 warps; 128 (4 warps) fits 16 = all 64.
    const auto s = estimate_best_block(h100_limits(), ResourceUsage{}, 0, 1, 200);
    EXPECT_EQ(s.threads, 128);
    EXPECT_EQ(s.blocks_per_sm, 16);
    EXPECT_DOUBLE_EQ(s.occupancy, 1.0);
}

TEST(OccupancyEstimate, ShapesKeepTheProblemsDimensionality) {
    EXPECT_EQ(shape_block(768, 1), (Dim3{768, 1, 1}));
    EXPECT_EQ(shape_block(768, 2), (Dim3{32, 24, 1}));
    EXPECT_EQ(shape_block(512, 2), (Dim3{32, 16, 1}));
    EXPECT_EQ(shape_block(256, 2), (Dim3{16, 16, 1}));
    EXPECT_EQ(shape_block(128, 2), (Dim3{16, 8, 1}));
    EXPECT_EQ(shape_block(32, 2), (Dim3{8, 4, 1}));
    EXPECT_EQ(shape_block(1024, 3), (Dim3{16, 8, 8}));
    EXPECT_EQ(shape_block(256, 3), (Dim3{8, 8, 4}));
    for (int threads = 32; threads <= 1024; threads += 32)
        for (int dims = 1; dims <= 3; ++dims) {
            const Dim3 b = shape_block(threads, dims);
            EXPECT_EQ(b.count(), uint64_t(threads)) << threads << " threads in " << dims << "D: " << b.str();
            EXPECT_LE(b.z, 64u);
            if (dims < 3) {
                EXPECT_EQ(b.z, 1u);
            }
            if (dims < 2) {
                EXPECT_EQ(b.y, 1u);
            }
        }
}

const char* kScale = R"(
extern "C" __global__ void scale(float* x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}
)";

TEST(CpuBackendOccupancy, EstimatesOnTheCudaLikeLimits) {
    CpuRig rig(test_options(3));
    const ModuleId m = rig.compile(kScale, "scale");
    // 2048 threads and 48 KiB of shared memory per "SM": 1024-thread blocks, 2 of them, full occupancy.
    OccupancyResult r = rig.backend->occupancy(OccupancyRequest{m, "scale", 0, 0, {}});
    ASSERT_FALSE(r.error.has_value()) << r.error->message;
    EXPECT_EQ(r.block_size, 1024);
    EXPECT_EQ(r.active_blocks_per_sm, 2);
    EXPECT_DOUBLE_EQ(r.occupancy, 1.0);
    EXPECT_EQ(r.min_grid_size, 2 * 3) << "blocks per SM times the 3 worker threads the backend calls SMs";
    EXPECT_EQ(r.method, "estimate from resource usage (CPU backend emulates CUDA limits)");

    // 30000 bytes of dynamic shared memory per block: one block fits, so the largest block wins at 50%.
    r = rig.backend->occupancy(OccupancyRequest{m, "scale", 30000, 0, {}});
    EXPECT_EQ(r.block_size, 1024);
    EXPECT_EQ(r.active_blocks_per_sm, 1);
    EXPECT_DOUBLE_EQ(r.occupancy, 0.5);

    r = rig.backend->occupancy(OccupancyRequest{m, "scale", 0, 200, {}});
    EXPECT_EQ(r.block_size, 128);
    EXPECT_EQ(r.active_blocks_per_sm, 16);

    r = rig.backend->occupancy(OccupancyRequest{m + 1000, "scale", 0, 0, {}});
    ASSERT_TRUE(r.error.has_value());
    EXPECT_NE(r.error->message.find("not loaded"), std::string::npos) << r.error->message;
}

}  // namespace
}  // namespace cp::test
