// Data files: a buffer's elements as raw bytes (little-endian, laid out as the device holds them), read for a
// kernel file's `data("x.bin")` initialisers and `result NAME: data(...)` lines. They lie next to the kernel
// file or in a folder below it (the header parser refuses any other path); a program's launch saved as a lesson
// writes them (session/program_lesson.h).
#pragma once

#include "core/result.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace cp {

// Data files above this are refused with their size: a lesson's buffer is at most what memory_budget allows.
inline constexpr uint64_t kDataFileMaxBytes = uint64_t(4) << 30;

struct DataFile {
    std::string path;                                   // the file as found
    std::shared_ptr<const std::vector<std::byte>> bytes;  // its contents, read once and shared
    std::string key;                                    // path, size and a hash of the contents: when it changed
};

// `written` (as the header has it) relative to the folder of `kernel_path`. Errors: Io (missing, unreadable),
// UserInput (larger than max_bytes), each naming the file and what to do.
Result<DataFile> load_data_file(const std::filesystem::path& kernel_path, const std::string& written,
                                uint64_t max_bytes = kDataFileMaxBytes);

// Writes `bytes` to `path` (the folder must exist); Io error with the path when it cannot.
Result<bool> save_data_file(const std::filesystem::path& path, const std::byte* bytes, size_t size);

}  // namespace cp
