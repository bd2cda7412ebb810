// Estimating the block size that maximises occupancy from a compiled kernel's resource usage and the
// device's limits: the search cuOccupancyMaxPotentialBlockSize does (per block size, how many blocks fit on
// an SM by warps, registers, shared memory and the block limit). The CPU backend answers occupancy requests
// with it, and the window falls back to it when no backend can be asked.
#pragma once

#include "core/types.h"

#include <string>

namespace cp {

struct BlockSuggestion {
    Dim3 block;                  // shaped for the problem's dimensionality (see shape_block)
    int threads = 0;
    int blocks_per_sm = 0;
    double occupancy = 0;        // active warps / max warps per SM
    std::string limited_by;      // "warps", "registers", "shared memory", "blocks per SM"
};

// `problem_dims`: 1-3. `dynamic_shared_bytes` is per block. Unknown usage (-1) counts as 0.
// `block_size_limit` > 0 caps the threads per block further (as the CUDA API's blockSizeLimit does).
BlockSuggestion estimate_best_block(const DeviceInfo& device, const ResourceUsage& usage, uint32_t dynamic_shared_bytes,
                                    int problem_dims, int block_size_limit = 0);

// `threads` (a multiple of the warp size) as a block of the problem's dimensionality: 1D stays a row; 2D
// gets a near-square shape with power-of-two rows of at most a warp (768 -> 32x24, 256 -> 16x16); 3D puts a
// power of two near the cube root in z and shapes the rest in 2D (1024 -> 16x8x8).
Dim3 shape_block(int threads, int problem_dims, int warp_size = 32);

}  // namespace cp
