// The cuda-playground subcommands; each takes its own arguments (after the subcommand) and returns the exit code.
// Exit codes: 0 success, 1 user error (with a message on stderr), 2 a result failed its check; main() turns an
// exception into 3 (an internal error: a bug), except running out of memory, which is 1.
#pragma once

#include "core/result.h"

#include <filesystem>
#include <string>
#include <vector>

namespace cp {
struct DeviceSplitReport;  // core/session/run_report.h
struct KernelFile;         // core/kernel_file/kernel_spec.h
}

namespace cp::cli {

// One subcommand: its name, what follows it in `--help`'s usage lines, and what it does. commands() is the only
// list of them: main() dispatches on it, suggests the closest name from it and prints `--help` from it.
struct Command {
    const char* name;      // "run"
    const char* synopsis;  // "FILE [options]"
    const char* summary;   // "run, time, verify, write outputs"
    int (*run)(const std::vector<std::string>& args);
};
const std::vector<Command>& commands();

int cmd_list(const std::vector<std::string>& args);
int cmd_info(const std::vector<std::string>& args);
int cmd_compile(const std::vector<std::string>& args);
int cmd_run(const std::vector<std::string>& args);
int cmd_describe(const std::vector<std::string>& args);
int cmd_export(const std::vector<std::string>& args);
int cmd_grade(const std::vector<std::string>& args);
int cmd_sweep(const std::vector<std::string>& args);
int cmd_debug(const std::vector<std::string>& args);
int cmd_worker(const std::vector<std::string>& args);
int cmd_script_serve(const std::vector<std::string>& args);

// Resolves FILE as given, else inside the kernel library ("image/box_blur", "box_blur", "box_blur.cu").
std::filesystem::path find_kernel_path(const std::string& file);

// ASSIGNMENT for `grade` and `export --for-students`: the file found as find_kernel_path finds it, free of errors
// (they go to stderr), with `grade` lines whose every case a run would take. An Error says which and how to fix it.
Result<KernelFile> load_assignment(const std::string& file);

// Before a run: the folder exists and is writable, or can be created (its nearest existing folder is writable).
Result<bool> check_output_folder(const std::string& option, const std::filesystem::path& dir);
// Before a run: the file is not a folder and can be written, or created (with its folder).
Result<bool> check_output_file(const std::string& option, const std::filesystem::path& file);

// `run`'s lines for a `devices:` run (run_devices_text.cpp).
void print_device_split(const DeviceSplitReport& split);

// Prints "error: message" and "  hint: ..." to stderr; returns 1.
int user_error(const std::string& message, const std::string& hint = {});
// An Error on stderr, and the exit status its kind says: 3 for an internal error (a bug in CUDA Playground,
// with a request to report it), else 1 (the user's to fix: the message says how).
int user_error(const Error& error);

}  // namespace cp::cli
