// Test support: run a command (the cuda-playground binary) and capture its exit code, stdout and stderr.
#pragma once

#include "support/test_cache.h"  // TestCacheDir, which the programs that run the binary hand it

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace cp::test {

struct ProcessResult {
    int exit_code = -1;
    std::string out, err;
    std::string both() const { return out + err; }
};

// Runs `args` (argv[0] first) with extra environment assignments ("NAME=value"); no shell involved.
ProcessResult run_process(const std::vector<std::string>& args, const std::vector<std::string>& env = {});

// A fresh temporary folder, removed when the object dies.
class TempDir {
public:
    TempDir();
    ~TempDir();
    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path write(const std::string& name, const std::string& content) const;

private:
    std::filesystem::path path_;
};

std::string read_file(const std::filesystem::path& path);

// A CUDA toolkit program (`nvcc`, `ptxas`): $CUDACXX for nvcc, else $CUDA_HOME/bin, else /usr/local/cuda/bin;
// empty when none of them has it.
std::filesystem::path cuda_toolkit_tool(const std::string& name);

}  // namespace cp::test
