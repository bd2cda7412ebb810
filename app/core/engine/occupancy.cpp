// Occupancy search (see occupancy.h). Allocation granularities follow NVIDIA's occupancy calculator for
// recent architectures: registers per warp in units of 256, one reserved KiB of shared memory per block.
#include "core/engine/occupancy.h"

#include <algorithm>

namespace cp {
namespace {

// The smallest power of two p with p * p >= n (or p^3 >= n when `cube`).
int pow2_at_least_root(int n, bool cube) {
    int p = 1;
    while ((cube ? p * p * p : p * p) < n) p *= 2;
    return p;
}

}  // namespace

OccupancyFigures occupancy_for_block(const DeviceInfo& d, const ResourceUsage& usage, uint32_t dynamic_shared_bytes,
                                     int threads) {
    OccupancyFigures f;
    const int warp = std::max(d.warp_size, 1);
    f.threads = threads;
    f.warps_per_block = (std::max(threads, 0) + warp - 1) / warp;
    f.max_warps_per_sm = std::max(d.max_threads_per_sm / warp, 1);
    f.registers_per_thread = std::max(usage.registers, 0);
    f.shared_per_block = std::max(usage.static_shared_bytes, 0) + int(dynamic_shared_bytes);
    int max_block = d.max_threads_per_block;
    if (usage.max_threads_per_block > 0) max_block = std::min(max_block, usage.max_threads_per_block);
    if (threads <= 0 || threads > max_block) {
        f.limited_by = "more threads than the kernel can launch with (" + std::to_string(max_block) + ")";
        return f;
    }
    const int regs_per_warp = (f.registers_per_thread * warp + 255) / 256 * 256;
    const int shared_per_block = f.shared_per_block > 0 ? f.shared_per_block + (d.cc_major >= 8 ? 1024 : 0) : 0;
    const int shared_per_sm = d.max_shared_per_sm > 0 ? d.max_shared_per_sm : d.max_shared_per_block;
    // Registers live in the SM's sub-partitions (4 on every architecture we run on but 6.0's 2); a warp's
    // registers come from one of them, and the per-block check counts warps rounded up to the partitions.
    const int partitions = (d.cc_major == 6 && d.cc_minor == 0) ? 2 : 4;
    const int warps_rounded = (f.warps_per_block + partitions - 1) / partitions * partitions;
    if (regs_per_warp > 0 && (regs_per_warp * f.warps_per_block > d.regs_per_block ||
                              regs_per_warp * warps_rounded > d.regs_per_block)) {
        f.limited_by = "registers (more than a block may have)";
        return f;
    }
    int blocks = std::max(d.max_blocks_per_sm, 1);
    f.limited_by = "blocks per SM";
    auto cap = [&](int n, const char* why) {
        if (n < blocks) {
            blocks = n;
            f.limited_by = why;
        }
    };
    cap(f.max_warps_per_sm / f.warps_per_block, "warps");
    if (regs_per_warp > 0)
        cap((d.regs_per_sm / partitions / regs_per_warp) * partitions / f.warps_per_block, "registers");
    if (shared_per_block > 0) cap(shared_per_sm / shared_per_block, "shared memory");
    f.blocks_per_sm = std::max(blocks, 0);
    f.warps_per_sm = f.blocks_per_sm * f.warps_per_block;
    f.occupancy = double(f.warps_per_sm) / f.max_warps_per_sm;
    return f;
}

std::vector<OccupancyFigures> occupancy_curve(const DeviceInfo& d, const ResourceUsage& usage,
                                              uint32_t dynamic_shared_bytes) {
    const int warp = std::max(d.warp_size, 1);
    int max_block = d.max_threads_per_block;
    if (usage.max_threads_per_block > 0) max_block = std::min(max_block, usage.max_threads_per_block);
    std::vector<OccupancyFigures> curve;
    for (int threads = warp; threads <= max_block; threads += warp)
        curve.push_back(occupancy_for_block(d, usage, dynamic_shared_bytes, threads));
    return curve;
}

BlockSuggestion estimate_best_block(const DeviceInfo& d, const ResourceUsage& usage, uint32_t dynamic_shared_bytes,
                                    int problem_dims, int block_size_limit) {
    const int warp = std::max(d.warp_size, 1);
    int max_block = d.max_threads_per_block;
    if (usage.max_threads_per_block > 0) max_block = std::min(max_block, usage.max_threads_per_block);
    if (block_size_limit > 0) max_block = std::min(max_block, block_size_limit);
    BlockSuggestion best;
    for (int threads = max_block / warp * warp; threads >= warp; threads -= warp) {
        const OccupancyFigures f = occupancy_for_block(d, usage, dynamic_shared_bytes, threads);
        if (f.blocks_per_sm == 0) continue;  // this block size cannot launch
        // Ties keep the larger block (searching downwards), as the CUDA runtime's helper does.
        if (f.occupancy > best.occupancy + 1e-9) {
            best.threads = threads;
            best.blocks_per_sm = f.blocks_per_sm;
            best.occupancy = f.occupancy;
            best.limited_by = f.limited_by;
        }
    }
    if (best.threads == 0) best.threads = warp;
    best.block = shape_block(best.threads, problem_dims, warp);
    return best;
}

Dim3 shape_block(int threads, int problem_dims, int warp_size) {
    if (threads <= 0) return Dim3{1, 1, 1};
    if (problem_dims < 2 || threads % warp_size != 0) return Dim3{uint32_t(threads), 1, 1};
    int z = 1;
    if (problem_dims >= 3) {
        z = pow2_at_least_root(threads, true);
        if (z * z * z > threads) z /= 2;  // the largest power of two at most the cube root
        z = std::min(z, 64);              // CUDA's limit on block.z
        while (z > 1 && (threads % z != 0 || threads / z < warp_size / 2)) z /= 2;
    }
    const int plane = threads / z;
    int x = std::min(pow2_at_least_root(plane, false), warp_size);
    while (x > 1 && plane % x != 0) x /= 2;
    return Dim3{uint32_t(x), uint32_t(plane / x), uint32_t(z)};
}

}  // namespace cp
