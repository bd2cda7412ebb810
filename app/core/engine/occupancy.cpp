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

BlockSuggestion estimate_best_block(const DeviceInfo& d, const ResourceUsage& usage, uint32_t dynamic_shared_bytes,
                                    int problem_dims, int block_size_limit) {
    const int warp = std::max(d.warp_size, 1);
    int max_block = d.max_threads_per_block;
    if (usage.max_threads_per_block > 0) max_block = std::min(max_block, usage.max_threads_per_block);
    if (block_size_limit > 0) max_block = std::min(max_block, block_size_limit);
    const int max_warps_sm = std::max(d.max_threads_per_sm / warp, 1);
    const int regs = std::max(usage.registers, 0);
    const int regs_per_warp = (regs * warp + 255) / 256 * 256;
    const int shared = std::max(usage.static_shared_bytes, 0) + int(dynamic_shared_bytes);
    const int shared_per_block = shared > 0 ? shared + (d.cc_major >= 8 ? 1024 : 0) : 0;
    const int shared_per_sm = d.max_shared_per_sm > 0 ? d.max_shared_per_sm : d.max_shared_per_block;

    BlockSuggestion best;
    for (int threads = max_block / warp * warp; threads >= warp; threads -= warp) {
        const int warps = threads / warp;
        int blocks = std::max(d.max_blocks_per_sm, 1);
        std::string limit = "blocks per SM";
        auto cap = [&](int n, const char* why) {
            if (n < blocks) {
                blocks = n;
                limit = why;
            }
        };
        cap(max_warps_sm / warps, "warps");
        if (regs_per_warp > 0) {
            if (regs_per_warp * warps > d.regs_per_block) continue;  // this block size cannot launch
            cap(d.regs_per_sm / (regs_per_warp * warps), "registers");
        }
        if (shared_per_block > 0) cap(shared_per_sm / shared_per_block, "shared memory");
        const double occupancy = double(blocks * warps) / max_warps_sm;
        // Ties keep the larger block (searching downwards), as the CUDA runtime's helper does.
        if (occupancy > best.occupancy + 1e-9) {
            best.threads = threads;
            best.blocks_per_sm = blocks;
            best.occupancy = occupancy;
            best.limited_by = limit;
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
