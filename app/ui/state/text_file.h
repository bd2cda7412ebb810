// Reading and writing whole text files; writes are atomic (temp file, fsync, rename) so a crash or
// kill -9 in the middle leaves either the old or the new contents, never half a file.
#pragma once

#include "core/result.h"

#include <filesystem>
#include <string>

namespace cp::ui {

Result<std::string> read_text_file(const std::filesystem::path& path);
// Creates missing parent folders.
Result<bool> write_file_atomically(const std::filesystem::path& path, const std::string& contents);

}  // namespace cp::ui
