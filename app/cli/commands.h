// The cuda-playground subcommands; each takes its own arguments (after the subcommand) and returns the exit code.
// Exit codes: 0 success, 1 user error (with a message on stderr), 2 a result failed its check.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace cp::cli {

int cmd_list(const std::vector<std::string>& args);
int cmd_info(const std::vector<std::string>& args);
int cmd_compile(const std::vector<std::string>& args);
int cmd_run(const std::vector<std::string>& args);
int cmd_sweep(const std::vector<std::string>& args);

// Resolves FILE as given, else inside the kernel library ("image/box_blur", "box_blur", "box_blur.cu").
std::filesystem::path find_kernel_path(const std::string& file);

// Prints "error: message" and "  hint: ..." to stderr; returns 1.
int user_error(const std::string& message, const std::string& hint = {});

}  // namespace cp::cli
