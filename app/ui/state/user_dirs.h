// Where the app keeps the user's things: edited kernels (data) and settings/layout (config).
// $CUDA_PLAYGROUND_USER_DIR puts both under one folder (tests use a temporary one); otherwise the XDG
// base directories: $XDG_DATA_HOME/cuda-playground/edits and $XDG_CONFIG_HOME/cuda-playground.
#pragma once

#include <filesystem>

namespace cp::ui {

std::filesystem::path edits_dir();
std::filesystem::path config_dir();
// Where a program's launches saved as lessons go (the Program panel's "Open as a lesson"), next to edits/.
std::filesystem::path launches_dir();

}  // namespace cp::ui
