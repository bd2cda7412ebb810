// Resolving the user folders from the environment (see user_dirs.h).
#include "core/kernel_file/user_dirs.h"

#include "core/kernel_file/kernel_file.h"

#include <cstdlib>

namespace cp {
namespace {

std::filesystem::path env_path(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? std::filesystem::path(v) : std::filesystem::path();
}

// $XDG_x_HOME, else $HOME/<fallback>, else the temp folder (a user without a home still gets a session).
std::filesystem::path xdg_base(const char* variable, const char* home_relative) {
    if (auto p = env_path(variable); !p.empty() && p.is_absolute()) return p;
    if (auto home = env_path("HOME"); !home.empty()) return home / home_relative;
    return std::filesystem::temp_directory_path();
}

}  // namespace

std::filesystem::path edits_dir() {
    if (auto p = env_path("CUDA_PLAYGROUND_USER_DIR"); !p.empty()) return p / "edits";
    return xdg_base("XDG_DATA_HOME", ".local/share") / "cuda-playground" / "edits";
}

std::filesystem::path launches_dir() {
    if (auto p = env_path("CUDA_PLAYGROUND_USER_DIR"); !p.empty()) return p / "launches";
    return xdg_base("XDG_DATA_HOME", ".local/share") / "cuda-playground" / "launches";
}

std::filesystem::path exports_dir() {
    if (auto p = env_path("CUDA_PLAYGROUND_USER_DIR"); !p.empty()) return p / "exports";
    return xdg_base("XDG_DATA_HOME", ".local/share") / "cuda-playground" / "exports";
}

std::filesystem::path config_dir() {
    if (auto p = env_path("CUDA_PLAYGROUND_USER_DIR"); !p.empty()) return p / "config";
    return xdg_base("XDG_CONFIG_HOME", ".config") / "cuda-playground";
}

std::filesystem::path edited_copy_of(const std::filesystem::path& library_file) {
    std::error_code ec;
    const std::filesystem::path lib = std::filesystem::weakly_canonical(kernels_dir(), ec);
    const std::filesystem::path file = std::filesystem::weakly_canonical(library_file, ec);
    const std::filesystem::path rel = file.lexically_relative(lib);
    if (rel.empty() || *rel.begin() == "..") return {};
    return edits_dir() / rel;
}

}  // namespace cp
