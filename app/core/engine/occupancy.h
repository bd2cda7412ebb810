// Estimating the block size that maximises occupancy from a compiled kernel's resource usage and the
// device's limits: the search cuOccupancyMaxPotentialBlockSize does (per block size, how many blocks fit on
// an SM by warps, registers, shared memory and the block limit). The CPU backend answers occupancy requests
// with it, and the window falls back to it when no backend can be asked.
#pragma once

#include "core/types.h"

#include <string>
#include <vector>

namespace cp {

struct BlockSuggestion {
    Dim3 block;                  // shaped for the problem's dimensionality (see shape_block)
    int threads = 0;
    int blocks_per_sm = 0;
    double occupancy = 0;        // active warps / max warps per SM
    std::string limited_by;      // "warps", "registers", "shared memory", "blocks per SM"
};

// The occupancy of one block size on one SM: what the Occupancy panel shows and the sweep predicts.
struct OccupancyFigures {
    int threads = 0;               // per block
    int warps_per_block = 0;
    int registers_per_thread = 0;  // as compiled (0: unknown)
    int shared_per_block = 0;      // static + dynamic bytes, before the per-block reservation
    int blocks_per_sm = 0;         // active blocks per SM (0: this block size cannot launch)
    int warps_per_sm = 0;          // active warps per SM
    int max_warps_per_sm = 0;
    double occupancy = 0;          // warps_per_sm / max_warps_per_sm
    std::string limited_by;        // "warps", "registers", "shared memory", "blocks per SM", or why it cannot launch
};

// The figures cuOccupancyMaxActiveBlocksPerMultiprocessor gives, computed from the device's properties and
// the compiled kernel's resource usage (unknown usage, -1, counts as 0).
OccupancyFigures occupancy_for_block(const DeviceInfo& device, const ResourceUsage& usage,
                                     uint32_t dynamic_shared_bytes, int threads);

// The same for every multiple of the warp size up to the largest block the kernel can launch: the chart.
std::vector<OccupancyFigures> occupancy_curve(const DeviceInfo& device, const ResourceUsage& usage,
                                              uint32_t dynamic_shared_bytes);

// `problem_dims`: 1-3. `dynamic_shared_bytes` is per block. Unknown usage (-1) counts as 0.
// `block_size_limit` > 0 caps the threads per block further (as the CUDA API's blockSizeLimit does).
BlockSuggestion estimate_best_block(const DeviceInfo& device, const ResourceUsage& usage, uint32_t dynamic_shared_bytes,
                                    int problem_dims, int block_size_limit = 0);

// `threads` (a multiple of the warp size) as a block of the problem's dimensionality: 1D stays a row; 2D
// gets a near-square shape with power-of-two rows of at most a warp (768 -> 32x24, 256 -> 16x16); 3D puts a
// power of two near the cube root in z and shapes the rest in 2D (1024 -> 16x8x8).
Dim3 shape_block(int threads, int problem_dims, int warp_size = 32);

}  // namespace cp
