// Splitting one run into parts along a size parameter (`streams: S over n`, and one array across GPUs): per
// part its element range, each buffer's byte range, the scalar override and the part's own grid.
#pragma once

#include "core/kernel_file/kernel_spec.h"
#include "core/result.h"
#include "core/session/run_report.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cp {

// Splits `run` into `parts` parts along `param` as evenly as possible (part p begins at p*n/P). Buffers whose
// element count equals n are cut; an `in` buffer of another size is passed whole to every part; an `out` or
// `inout` one of another size is refused (the parts would race on it). Also refused: an unknown or non-whole
// parameter, fewer elements than parts, no buffer of n elements, and a grid that does not evaluate.
Result<ChunkPlan> plan_chunks(const ResolvedRun& run, const std::vector<BufferSpec>& buffers, const LaunchSpec& launch,
                              const std::string& param, int parts);

}  // namespace cp
