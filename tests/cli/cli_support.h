// What the CLI tests share: the real binary, run with one compile cache for the whole test program (so its
// tests reuse each other's compiles, also as separate processes under ctest, and none reads the user's cache).
#pragma once

#include "support/process.h"

#include <string>
#include <vector>
#include "test_paths.h"

namespace cp::test {

// The lessons' cache (support/test_cache.h): the unit tests that compile the lessons use it too.
inline const TestCacheDir& cli_cache_dir() {
    return lessons_cache_dir();
}

// The cuda-playground binary with `args`, the extra environment `env` and the shared cache folder.
inline ProcessResult cli(std::vector<std::string> args, std::vector<std::string> env = {}) {
    args.insert(args.begin(), CP_BINARY);
    env.push_back("CUDA_PLAYGROUND_CACHE_DIR=" + cli_cache_dir().path().string());
    return run_process(args, env);
}

}  // namespace cp::test
