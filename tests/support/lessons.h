// Test support: the library's lessons (kernels/**/*.cu of the source tree) as the parameters of value-parameterised
// tests, so a walk over the library is one CTest test per lesson: ctest's workers share it evenly and a failure
// names its lesson. A lesson is named as `list` names it ("basics/vector_add"), its test "basics_vector_add".
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>
#include "test_paths.h"

namespace cp::test {

inline std::filesystem::path source_kernels_dir() {
    return std::filesystem::path(CP_SOURCE_DIR) / "kernels";
}

// Every lesson's name, sorted. The tests are listed from it before anything runs, so it only reads the folder; each
// suite that uses it has a test that it names the same lessons as the library does (scan_library, `list`).
inline std::vector<std::string> library_lesson_names() {
    namespace fs = std::filesystem;
    const fs::path dir = source_kernels_dir();
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (!it->is_regular_file(ec) || it->path().extension() != ".cu") continue;
        names.push_back(it->path().lexically_relative(dir).replace_extension().generic_string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

inline std::filesystem::path lesson_path(const std::string& name) {
    return source_kernels_dir() / (name + ".cu");
}

// "basics/vector_add" -> "basics_vector_add" (a test name has letters, digits and underscores only).
inline std::string lesson_test_name(const testing::TestParamInfo<std::string>& info) {
    std::string name = info.param;
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
}

}  // namespace cp::test
