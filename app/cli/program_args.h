// `run` on a whole program (a file with its own main()): the arguments that concern it, and the choice between
// running a file as a program and running it as its metadata header describes.
#pragma once

#include "cli/args.h"
#include "core/result.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace cp::cli {

// `run`'s argv split: the program's arguments after `--`, `-I DIR` / `-IDIR` (as nvcc takes them), and the rest
// for the usual parser.
struct SplitRunArgs {
    std::vector<std::string> options;
    std::vector<std::string> program_args;
    std::vector<std::string> include_dirs;
    bool separator = false;  // `--` was given
};
SplitRunArgs split_run_args(const std::vector<std::string>& argv);

struct ProgramCommand {
    std::filesystem::path file;
    bool script = false;      // a Python script (.py: core/session/script_host.h), not a C++ program
    std::string source;
    std::vector<std::string> program_args, include_dirs;
    std::string backend = "auto";
    std::string json;         // --json FILE ("-": stdout)
    double time_limit_s = 0;  // --time-limit SECONDS; 0: the default
    std::string capture;      // --capture FILE: each launch's buffers before and after (docs/program_capture.md)
    uint64_t capture_limit = uint64_t(256) << 20;  // --capture-limit MIB
    size_t save_launch = 0;   // --save-launch N: launch N (1-based) saved as a lesson (program_lesson.h); 0: none
    std::string out_dir;      // --out-dir DIR: where; default `STEM-launchN` in the working folder
};

// The program to run, when FILE is one: it has a main() and no playground header, or --as-program. Nothing when
// it is a kernel file to run as its header says; an Error for options that do not fit what the file is.
Result<std::optional<ProgramCommand>> program_command(const Args& args, const SplitRunArgs& split);

int run_program(const ProgramCommand& command);

}  // namespace cp::cli
