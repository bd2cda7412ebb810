// Checking a launch configuration against a device's limits before launching, with fix suggestions.
#pragma once

#include "core/result.h"
#include "core/types.h"

#include <optional>
#include <string>
#include <vector>

namespace cp {

// Which of the launch's settings a finding is about: the one to change to fix it.
enum class LaunchSetting : uint8_t { Block, Grid, SharedMemory };
constexpr const char* launch_setting_name(LaunchSetting s) {
    return s == LaunchSetting::Block ? "block" : s == LaunchSetting::Grid ? "grid" : "shared_memory";
}

struct LaunchIssue {
    Severity severity = Severity::Error;  // Error: refused; Warning: allowed but probably unintended
    std::string limit;                    // which limit, e.g. "max threads per block"
    std::string message;                  // full sentence with value, limit and a suggestion
    // The same as data, for code to decide on: what the launch has against the limit it passed (threads per block,
    // threads or blocks in one axis, shared bytes, registers per block, elements covered against the problem's,
    // threads per block against the warp size: `value` of `maximum`), and the block and grid the message
    // suggests, when it suggests them. 0 / nullopt where the issue has none (a zero dimension).
    uint64_t value = 0, maximum = 0;
    std::optional<Dim3> try_block, try_grid;
    LaunchSetting setting = LaunchSetting::Block;
};

// LaunchIssue::limit of the guess that the grid does not cover the problem (a measurement replaces it).
inline constexpr const char* kCoverageLimit = "grid covers the problem";

struct LaunchCheck {
    Dim3 grid, block;
    uint32_t dynamic_shared_bytes = 0;
    ResourceUsage usage;                  // registers, static shared (unknown = -1)
    std::vector<uint64_t> problem;        // 0-3 extents the grid should cover
};

// Errors: zero dims, threads per block, per-dimension block/grid limits, shared memory per block,
// registers x threads. Warnings (only when there is no error): grid does not cover the problem, block not a
// multiple of the warp size. Usage fields left unknown (-1) are not checked, so this can run before compiling.
std::vector<LaunchIssue> validate_launch(const DeviceInfo& device, const LaunchCheck& check);

// Derived figures for the UI and CLI text output.
struct LaunchFigures {
    uint64_t total_threads = 0, blocks = 0;
    uint32_t warps_per_block = 0;
    uint64_t threads_beyond_problem = 0;  // launched threads outside the problem extents
};
LaunchFigures launch_figures(const DeviceInfo& device, const LaunchCheck& check);

// Parses "256", "16x16", "8x8x4" (also ','). Bad text (a `*`, a missing or extra dimension, a 0, a number over
// 2^32 - 1) is a UserInput error that quotes the text and says why; its hint gives shapes that work.
Result<Dim3> parse_dim3(const std::string& text);

}  // namespace cp
