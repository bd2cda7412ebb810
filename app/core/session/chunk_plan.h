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

// One buffer in one part: a byte range of it, or the whole buffer (an `in` buffer of another size).
struct ChunkBuffer {
    std::string name;
    bool whole = false;        // another size than the split parameter: passed whole (only `in` buffers)
    uint64_t byte_offset = 0;  // where the part's elements start in the buffer
    uint64_t bytes = 0;        // the part's bytes (whole: the buffer's)
    Direction direction = Direction::In;
};

// One part: elements [begin, end) of the split parameter's range.
struct ChunkPart {
    int index = 0;  // 0-based
    uint64_t begin = 0, end = 0;
    uint64_t length() const { return end - begin; }
    std::vector<ChunkBuffer> buffers;      // in the file's order
    std::map<std::string, double> params;  // the run's parameters with the split one set to length()
    Dim3 grid;                             // the file's `grid:` evaluated with those parameters
};

struct ChunkPlan {
    std::string param;    // the split parameter
    uint64_t total = 0;   // its value in the run
    std::vector<ChunkPart> parts;
};

// Splits `run` into `parts` parts along `param` as evenly as possible (part p begins at p*n/P). Buffers whose
// element count equals n are cut; an `in` buffer of another size is passed whole to every part; an `out` or
// `inout` one of another size is refused (the parts would race on it). Also refused: an unknown or non-whole
// parameter, fewer elements than parts, no buffer of n elements, and a grid that does not evaluate.
Result<ChunkPlan> plan_chunks(const ResolvedRun& run, const std::vector<BufferSpec>& buffers, const LaunchSpec& launch,
                              const std::string& param, int parts);

}  // namespace cp
