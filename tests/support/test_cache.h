// Test support: compile caches for tests to share, header-only (the CPU backend's unit tests, the CLI, UI and
// unit tests all reach the lessons' cache through it).
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <system_error>

namespace cp::test {

// A compile cache for one test program's tests to share. Under ctest each test is a process of its own, so it
// is $CP_TEST_CACHE_DIR/NAME, shared by the run's tests and emptied when the run starts (tests/CMakeLists.txt);
// a test program run directly gets a temporary folder of its own, removed when it ends.
class TestCacheDir {
public:
    explicit TestCacheDir(const std::string& name) {
        const char* shared = std::getenv("CP_TEST_CACHE_DIR");
        if (shared && *shared) {
            path_ = std::filesystem::path(shared) / name;
        } else {
            std::random_device rd;
            own_ = std::filesystem::temp_directory_path() /
                   ("cp-test-" + std::to_string(rd()) + std::to_string(::getpid()));
            path_ = own_;
        }
        std::error_code ec;
        std::filesystem::create_directories(path_, ec);
    }
    ~TestCacheDir() {
        std::error_code ec;
        if (!own_.empty()) std::filesystem::remove_all(own_, ec);
    }
    TestCacheDir(const TestCacheDir&) = delete;
    TestCacheDir& operator=(const TestCacheDir&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path own_;  // the temporary folder, when not shared
    std::filesystem::path path_;
};

// The compile cache of the library's lessons (as $CUDA_PLAYGROUND_CACHE_DIR): the CLI tests hand it to the binary,
// and the unit tests that compile or run the lessons use it too. Their compile requests are the same, so under
// ctest each lesson's kernel and reference are compiled once per run, not once per test that walks the library.
inline const TestCacheDir& lessons_cache_dir() {
    static const TestCacheDir dir("cli");
    return dir;
}

}  // namespace cp::test
