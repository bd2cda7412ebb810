// Reading and writing whole text files; writes are atomic (temp file, fsync, rename) so a crash or
// kill -9 in the middle leaves either the old or the new contents, never half a file.
#pragma once

#include "core/result.h"

#include <filesystem>
#include <string>

namespace cp::ui {

Result<std::string> read_text_file(const std::filesystem::path& path);
// Creates missing parent folders; follows a symbolic link to the file it names and keeps an existing file's
// permissions (a file of the user's own is saved in place).
Result<bool> write_file_atomically(const std::filesystem::path& path, const std::string& contents);

// For tests: the moments of write_file_atomically() where a crash must still leave a whole file. A hook set
// here is called at each (a test's helper process kills itself there); none is set in the app.
enum class WriteStage {
    PartWritten,  // half of the new contents written to the temporary file
    Written,      // all of them written and synced, not yet renamed over the file
    Renamed,      // the file holds the new contents
};
using WriteStageHook = void (*)(WriteStage stage);
void set_write_stage_hook(WriteStageHook hook);

}  // namespace cp::ui
