// The debugger's test data (tests/data/debug), shared by its command-line, window and GPU tests: where a file is,
// the line of a statement in it, and the tree sum's shared tile after each level, computed here.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "test_paths.h"

namespace cp::test {

inline std::string debug_data(const std::string& name) {
    return std::string(CP_SOURCE_DIR) + "/tests/data/debug/" + name;
}

// The 1-based line of the first line of `file` containing `text` (after line `after`); 0, failing the test, if none.
inline int line_in(const std::string& file, const std::string& text, int after = 0) {
    std::ifstream in(file);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n)
        if (n > after && line.find(text) != std::string::npos) return n;
    ADD_FAILURE() << "no line with `" << text << "` in " << file;
    return 0;
}

// tree_sum.cu's shared tile of block `block` after each level: level 0 is the loaded tile (ramp 1, 2, ...: element
// i holds i + 1 below n, 0 past it), level k has added the upper half of level k-1's first 2 * stride elements.
inline std::vector<std::vector<long>> tree_sum_levels(int block, int n) {
    std::vector<long> p(64);
    for (int t = 0; t < 64; ++t) p[size_t(t)] = block * 64 + t < n ? block * 64 + t + 1 : 0;
    std::vector<std::vector<long>> levels{p};
    for (int stride = 32; stride > 0; stride /= 2) {
        for (int t = 0; t < stride; ++t) p[size_t(t)] += p[size_t(t + stride)];
        levels.push_back(p);
    }
    return levels;
}

}  // namespace cp::test
