// The Launch panel's "Suggest block size (occupancy)" exchange: the panel asks, the workspace runs the
// query on the session thread (the engine's occupancy API) and applies the answer, and the panel shows it
// with the method that produced it. Without a backend, or when it cannot answer, the local estimate from
// the kernel's resource usage stands in, and the words say so.
#pragma once

#include "core/engine/engine_api.h"
#include "core/kernel_file/kernel_file.h"

#include <string>

namespace cp::ui {

struct BlockSuggestionState {
    bool requested = false;  // set by the panel's button; the workspace submits the query when the runner is idle
    bool pending = false;    // submitted, no answer yet
    std::string shown;       // the last answer in words, e.g. "CUDA occupancy API: 768 threads as 32x24, ..."
};

struct AppliedSuggestion {
    Dim3 block;        // shaped for the kernel's dimensionality
    std::string text;  // method first, then threads, shape, blocks per SM, occupancy
};

// From the engine's answer.
AppliedSuggestion suggestion_from_api(const OccupancyResult& answer, int problem_dims);
// The local estimate on `device`'s limits; `why` says why the engine was not asked or could not answer.
AppliedSuggestion suggestion_from_estimate(const DeviceInfo& device, const ResourceUsage& usage,
                                           uint32_t dynamic_shared_bytes, int problem_dims, const std::string& why);

// The kernel's dimensionality: the resolved problem's when known, else the metadata's block (a y or z
// expression other than "1" makes it 2D or 3D).
int problem_dims_of(const std::vector<uint64_t>& problem, const KernelFile& file);

}  // namespace cp::ui
