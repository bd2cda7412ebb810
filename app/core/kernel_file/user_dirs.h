// Where the app keeps the user's things: edited kernels (data), settings and layout (config), and a program's
// launches saved as lessons. $CUDA_PLAYGROUND_USER_DIR puts them all under one folder (tests use a temporary one);
// otherwise the XDG base directories: $XDG_DATA_HOME/cuda-playground/{edits,launches,exports} and
// $XDG_CONFIG_HOME/cuda-playground. The window writes them; the command line reads the edits to say when a library
// lesson it runs has an edited copy.
#pragma once

#include <filesystem>

namespace cp {

std::filesystem::path edits_dir();
std::filesystem::path config_dir();
// Where a program's launches saved as lessons go (the Program panel's "Open as a lesson"), next to edits/.
std::filesystem::path launches_dir();
// Where File > Export as a program writes a lesson's standalone program by default (one folder per lesson).
std::filesystem::path exports_dir();
// The window's edited copy of library kernel `library_file` (a path under kernels_dir()): edits_dir() / its path in
// the library; empty for a file outside the library.
std::filesystem::path edited_copy_of(const std::filesystem::path& library_file);

}  // namespace cp
