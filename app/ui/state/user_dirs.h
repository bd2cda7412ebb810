// The user folders (core/kernel_file/user_dirs.h), by the names the window's code uses.
#pragma once

#include "core/kernel_file/user_dirs.h"

namespace cp::ui {

using cp::config_dir;
using cp::edits_dir;
using cp::exports_dir;
using cp::launches_dir;

}  // namespace cp::ui
