// Test support: run a command (the cuda-playground binary) and capture its exit code, stdout and stderr.
#pragma once

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

// A compile cache for one test program's tests to share. Under ctest each test is a process of its own, so it
// is $CP_TEST_CACHE_DIR/NAME, shared by the run's tests and emptied when the run starts (tests/CMakeLists.txt);
// a test program run directly gets a temporary folder of its own.
class TestCacheDir {
public:
    explicit TestCacheDir(const std::string& name) {
        const char* shared = std::getenv("CP_TEST_CACHE_DIR");
        path_ = shared && *shared ? std::filesystem::path(shared) / name : temp_.path();
        std::error_code ec;
        std::filesystem::create_directories(path_, ec);
    }
    const std::filesystem::path& path() const { return path_; }

private:
    TempDir temp_;
    std::filesystem::path path_;
};

}  // namespace cp::test
