// What a kernel's body does with its parameters, read from its tokens (nothing is compiled): which pointers it
// reads and writes, how it indexes them, which variables its guards and loops bound, its shared arrays.
// `describe` proposes a header from these facts.
#pragma once

#include "core/kernel_file/kernel_scan.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cp {

// An expression as tokens' texts: `row * k + t * TILE_WIDTH + tx` is {row, *, k, +, t, ...}.
using Words = std::vector<std::string>;

struct PointerUse {
    bool read = false, written = false;
    bool atomic = false;               // passed to atomicAdd & co. (read and written, by accumulation)
    bool other = false;                // used some other way (aliased, passed on): direction not known from its uses
    std::vector<Words> reads, writes;  // index expressions, `p[...]`
};

struct SharedArray {
    std::string name, type;
    bool is_extern = false;
    std::vector<Words> dims;     // `[TILE][TILE + 1]`: {TILE}, {TILE, +, 1}
    std::vector<Words> indexes;  // how the body indexes it
};

struct KernelBody {
    bool found = false;                          // the kernel has a body to read
    bool two_d = false;                          // it uses blockIdx.y or threadIdx.y
    bool guarded = false;                        // a thread-derived index is compared with a size (a bounds check)
    bool block_index = false;                    // it reads blockIdx (else every block does the same work)
    std::map<std::string, PointerUse> pointers;  // by parameter name
    std::map<std::string, int> axis;             // a local variable derived from .x (0), .y (1), .z (2)
    std::map<std::string, Words> bounds;         // `v < EXPR` (a guard or a loop): v's first bound
    // `int rgbOffset = greyOffset * 3;`: a local defined as another value times 2, 3 or 4 (packed channels
    // indexed through it, `rgb[rgbOffset + 2]`): the local and its factor.
    std::map<std::string, int> scaled;
    std::vector<SharedArray> shared;
    std::map<std::string, long> constants;  // `#define TILE 16`, `const int TILE = 16;` in the file
    // `threadIdx.y + j` where a loop steps `j += ROWS`: each thread covers several rows of a tile, ROWS apart
    // (the transpose samples' BLOCK_ROWS), so the block has ROWS rows. The step's word; empty when none.
    std::string row_step;
};

// Reads `kernel`'s body in `source`. `pointer_params` and `scalar_params` are its parameters' names.
KernelBody read_kernel_body(const std::string& source, const ScannedKernel& kernel,
                            const std::vector<std::string>& pointer_params,
                            const std::vector<std::string>& scalar_params);

// The value of a constant dimension such as {TILE, +, 1} (its first word: 16 for TILE = 16), if known.
std::optional<long> leading_constant(const Words& w, const std::map<std::string, long>& constants);

std::string words_text(const Words& w);  // `row * k + tx`

}  // namespace cp
