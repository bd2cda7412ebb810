// Words and block shapes for the occupancy suggestion (see block_suggestion.h).
#include "ui/state/block_suggestion.h"

#include "core/engine/occupancy.h"

#include <algorithm>
#include <cstdio>

namespace cp::ui {
namespace {

std::string figures(int threads, Dim3 block, int blocks_per_sm, double occupancy) {
    char text[160];
    std::snprintf(text, sizeof text, "%d threads as %s, %d blocks/SM, %.0f%% occupancy", threads, block.str().c_str(),
                  blocks_per_sm, occupancy * 100);
    return text;
}

}  // namespace

AppliedSuggestion suggestion_from_api(const OccupancyResult& answer, int problem_dims) {
    AppliedSuggestion s;
    s.block = shape_block(answer.block_size, problem_dims);
    const std::string method =
        answer.method == "cuOccupancyMaxPotentialBlockSize" ? "CUDA occupancy API" : answer.method;
    s.text = method + ": " + figures(answer.block_size, s.block, answer.active_blocks_per_sm, answer.occupancy);
    return s;
}

AppliedSuggestion suggestion_from_estimate(const DeviceInfo& device, const ResourceUsage& usage,
                                           uint32_t dynamic_shared_bytes, int problem_dims, const std::string& why) {
    const BlockSuggestion e = estimate_best_block(device, usage, dynamic_shared_bytes, problem_dims);
    AppliedSuggestion s;
    s.block = e.block;
    s.text = "estimate from resource usage (" + why + "): " + figures(e.threads, e.block, e.blocks_per_sm, e.occupancy) +
             ", limited by " + e.limited_by;
    return s;
}

int problem_dims_of(const std::vector<uint64_t>& problem, const KernelFile& file) {
    if (!problem.empty()) return int(std::min<size_t>(problem.size(), 3));
    const auto& b = file.spec.launch.block_expr;
    if (b[2] != "1" && !b[2].empty()) return 3;
    if (b[1] != "1" && !b[1].empty()) return 2;
    return 1;
}

}  // namespace cp::ui
