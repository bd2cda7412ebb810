// Checking `run`'s output paths (--out-dir, --json) before anything is compiled or run, so a path that can
// never be written is refused in seconds, not after a long run.
#include "cli/commands.h"

#include <unistd.h>
#include <cerrno>
#include <cstring>

namespace cp::cli {

namespace fs = std::filesystem;

namespace {

std::string quoted(const fs::path& p) {
    return "`" + p.string() + "`";
}

// A folder that does not exist yet can be created when the nearest existing folder on its way is writable.
Result<bool> check_creatable(const std::string& given, const fs::path& dir, const fs::path& target) {
    std::error_code ec;
    fs::path existing = dir;
    while (!existing.empty() && !fs::exists(existing, ec)) existing = existing.parent_path();
    if (existing.empty()) existing = ".";
    if (!fs::is_directory(existing, ec)) {
        return make_error(
            ErrorKind::Io,
            given + ": " + quoted(existing) + " is a file, not a folder, so " + quoted(target) + " cannot be created",
            "choose another path");
    }
    if (::access(existing.c_str(), W_OK | X_OK) != 0) {
        return make_error(
            ErrorKind::Io,
            given + ": cannot create " + quoted(target) + " in " + quoted(existing) + ": " + std::strerror(errno),
            "choose a folder you can write to");
    }
    return true;
}

}  // namespace

Result<bool> check_output_folder(const std::string& option, const fs::path& dir) {
    const std::string given = "`" + option + " " + dir.string() + "`";
    std::error_code ec;
    if (!fs::exists(dir, ec)) return check_creatable(given, dir, dir);
    if (!fs::is_directory(dir, ec))
        return make_error(ErrorKind::Io, given + ": " + quoted(dir) + " is a file, not a folder",
                          "give a folder, e.g. " + option + " out");
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        return make_error(ErrorKind::Io, given + ": cannot write in " + quoted(dir) + ": " + std::strerror(errno),
                          "choose a folder you can write to");
    return true;
}

Result<bool> check_output_file(const std::string& option, const fs::path& file) {
    const std::string given = "`" + option + " " + file.string() + "`";
    std::error_code ec;
    if (fs::is_directory(file, ec)) {
        return make_error(ErrorKind::Io, given + ": " + quoted(file) + " is a folder; " + option + " needs a file name",
                          "e.g. " + option + " " + (file / "result.json").string());
    }
    if (fs::exists(file, ec)) {
        if (::access(file.c_str(), W_OK) != 0)
            return make_error(ErrorKind::Io, given + ": cannot write " + quoted(file) + ": " + std::strerror(errno),
                              "choose another file");
        return true;
    }
    return check_creatable(given, file.parent_path().empty() ? fs::path(".") : file.parent_path(), file);
}

}  // namespace cp::cli
