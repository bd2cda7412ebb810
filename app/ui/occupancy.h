// Suggesting a block size from occupancy: the same search cudaOccupancyMaxPotentialBlockSize does (per block
// size, how many blocks fit on an SM by warps, registers, shared memory and the block limit), computed from
// the compiled kernel's resource usage and the device's limits, so it works for every backend.
#pragma once

#include "core/types.h"

#include <string>

namespace cp::ui {

struct BlockSuggestion {
    Dim3 block;                  // shaped for the problem's dimensionality (2D problems get 2D blocks)
    int threads = 0;
    int blocks_per_sm = 0;
    double occupancy = 0;        // active warps / max warps per SM
    std::string limited_by;      // "warps", "registers", "shared memory", "blocks per SM"
};

// `problem_dims`: 1-3. `dynamic_shared_bytes` is per block. Unknown usage (-1) counts as 0.
BlockSuggestion suggest_block(const DeviceInfo& device, const ResourceUsage& usage, uint32_t dynamic_shared_bytes,
                              int problem_dims);

}  // namespace cp::ui
