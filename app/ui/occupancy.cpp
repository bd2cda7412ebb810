// Occupancy search (see occupancy.h). Allocation granularities follow NVIDIA's occupancy calculator for
// recent architectures: registers per warp in units of 256, one reserved KiB of shared memory per block.
#include "ui/occupancy.h"

#include <algorithm>

namespace cp::ui {

BlockSuggestion suggest_block(const DeviceInfo& d, const ResourceUsage& usage, uint32_t dynamic_shared_bytes,
                              int problem_dims) {
    const int warp = std::max(d.warp_size, 1);
    int max_block = d.max_threads_per_block;
    if (usage.max_threads_per_block > 0) max_block = std::min(max_block, usage.max_threads_per_block);
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
    if (problem_dims >= 2 && best.threads >= warp) {
        best.block = Dim3{uint32_t(std::min(best.threads, warp)), uint32_t(best.threads / std::min(best.threads, warp)), 1};
    } else {
        best.block = Dim3{uint32_t(best.threads), 1, 1};
    }
    return best;
}

}  // namespace cp::ui
