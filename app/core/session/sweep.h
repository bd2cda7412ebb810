// Block-size sweeps: one kernel timed over a set of block shapes (1D: 32..1024 step 32; 2D and 3D: the usual
// shapes), each with repeats, beside the occupancy each shape is predicted to reach. One compile, one buffer
// setup, then launches only: what `cuda-playground sweep` and the window's Sweep panel run.
#pragma once

#include "core/engine/occupancy.h"
#include "core/types.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace cp {

struct SweepConfig {
    Dim3 block, grid;  // the grid is the file's grid expression evaluated for this block
    double median_ms = 0, min_ms = 0, max_ms = 0;
    OccupancyFigures predicted;  // from the compiled kernel's resources and the device (core/engine/occupancy.h)
    std::string skipped;         // why this shape was not launched (refused by the limits, failed); empty: timed
    bool timed() const { return skipped.empty(); }
};

struct SweepResult {
    std::string kernel, backend, device;
    int repeats = 0;
    std::vector<SweepConfig> configs;
    int best = -1;           // index of the lowest median time; -1 when none was timed
    bool cancelled = false;  // stopped early: the configs so far are kept
    double wall_ms = 0;      // the whole sweep, compile and buffers included
};

struct SweepOptions {
    std::vector<Dim3> blocks;  // empty: default_sweep_blocks for the problem's dimensionality
    int warmup = 1, repeats = 10;
    std::function<void(size_t done, size_t total)> progress;  // after each shape (on the caller's thread)
    const std::atomic<bool>* cancel = nullptr;                // checked between shapes
};

// 1D: every multiple of the warp size up to the device's block limit; 2D and 3D: the usual power-of-two
// shapes within the limits.
std::vector<Dim3> default_sweep_blocks(int problem_dims, const DeviceInfo& device);

// "block,grid,threads,median_ms,min_ms,max_ms,blocks_per_sm,occupancy,limited_by,best,skipped" rows.
std::string sweep_csv(const SweepResult& result);
std::string sweep_json(const SweepResult& result);

}  // namespace cp
