// split_run_args and program_command (program_args.h).
#include "cli/program_args.h"

#include "core/session/script_host.h"

#include "cli/commands.h"
#include "core/backends/registry.h"
#include "core/kernel_file/kernel_file.h"
#include "core/kernel_file/program_file.h"

#include <cerrno>
#include <cstdlib>

namespace cp::cli {

SplitRunArgs split_run_args(const std::vector<std::string>& argv) {
    SplitRunArgs out;
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a == "--") {
            out.separator = true;
            out.program_args.assign(argv.begin() + long(i) + 1, argv.end());
            break;
        }
        if (a == "-I" && i + 1 < argv.size()) {
            out.include_dirs.push_back(argv[++i]);
            continue;
        }
        if (a.size() > 2 && a.compare(0, 2, "-I") == 0) {
            out.include_dirs.push_back(a.substr(2));
            continue;
        }
        out.options.push_back(a);
    }
    return out;
}

namespace {

Result<double> time_limit_option(const Args& args) {
    const std::string text = args.get("--time-limit");
    char* end = nullptr;
    errno = 0;
    const double s = std::strtod(text.c_str(), &end);
    if (text.empty() || *end || errno || !(s > 0) || s > 86400)
        return make_error(ErrorKind::UserInput, "--time-limit " + text + " is not a number of seconds from 0 to 86400",
                          "e.g. --time-limit 120");
    return s;
}

// --backend, --json and --time-limit, which programs and scripts share.
std::optional<Error> read_common_options(const Args& args, ProgramCommand& command) {
    auto backend = check_backend_name(args.get("--backend", "auto"));
    if (!backend) return backend.error();
    command.backend = *backend;
    command.json = args.get("--json");
    if (args.has("--time-limit")) {
        auto s = time_limit_option(args);
        if (!s) return s.error();
        command.time_limit_s = *s;
    }
    return std::nullopt;
}

// --capture, --capture-limit, --save-launch and --out-dir, which programs and scripts share.
std::optional<Error> read_capture_options(const Args& args, const std::filesystem::path& path, ProgramCommand& command) {
    if (args.has("--capture")) {
        command.capture = args.get("--capture");
        if (command.capture.empty())
            return make_error(ErrorKind::UserInput, "--capture needs a file", "e.g. --capture run.cpcap");
        if (auto ok = check_output_file("--capture", command.capture); !ok) return ok.error();
    }
    if (args.has("--save-launch")) {
        auto n = parse_whole_number("--save-launch", args.get("--save-launch"), 1, 1000000);
        if (!n) return n.error();
        command.save_launch = size_t(*n);
        command.out_dir = args.has("--out-dir") ? args.get("--out-dir")
                                                : path.stem().string() + "-launch" + std::to_string(*n);
    } else if (args.has("--out-dir")) {
        return make_error(ErrorKind::UserInput, "--out-dir is where --save-launch writes its lesson, and it was not given",
                          "e.g. --save-launch 2 --out-dir reduce-lesson");
    }
    if (args.has("--capture-limit")) {
        auto mib = parse_whole_number("--capture-limit", args.get("--capture-limit"), 1, 65536);
        if (!mib) return mib.error();
        command.capture_limit = uint64_t(*mib) << 20;
    }
    return std::nullopt;
}

// A Python script: its own arguments after `--`; --backend, --json, --time-limit and the capture's options.
Result<std::optional<ProgramCommand>> script_command(const Args& args, const SplitRunArgs& split,
                                                     const std::filesystem::path& path) {
    static const std::vector<std::string> kept = {"--backend",       "--json",        "--time-limit", "--capture",
                                                  "--capture-limit", "--save-launch", "--out-dir",    "--help"};
    for (const auto& [name, values] : args.values)
        if (std::find(kept.begin(), kept.end(), name) == kept.end())
            return make_error(ErrorKind::UserInput,
                              "`" + name + "` does not apply to a Python script (" + path.filename().string() + ")",
                              "a script chooses its own grid, block and sizes: pass it arguments after `--`, e.g. "
                              "`cuda-playground run " + args.positional[0] + " -- 1000`; a script takes --backend, "
                              "--json, --time-limit, --capture, --capture-limit, --save-launch and --out-dir");
    if (!split.include_dirs.empty())
        return make_error(ErrorKind::UserInput, "-I is for C++ programs; a script names its headers' folders itself",
                          "pass include_dirs=[...] to SourceModule in the script");
    ProgramCommand command;
    command.file = path;
    command.script = true;
    command.program_args = split.program_args;
    if (auto refused = read_common_options(args, command)) return *refused;
    if (auto refused = read_capture_options(args, path, command)) return *refused;
    return std::optional<ProgramCommand>(std::move(command));
}

}  // namespace

Result<std::optional<ProgramCommand>> program_command(const Args& args, const SplitRunArgs& split) {
    if (is_script_file(args.positional.at(0))) {
        std::error_code ec;
        const std::filesystem::path script = args.positional[0];
        if (!std::filesystem::is_regular_file(script, ec))
            return make_error(ErrorKind::UserInput, "no such script: " + script.string(), "check the path");
        return script_command(args, split, script);
    }
    const std::filesystem::path path = find_kernel_path(args.positional.at(0));
    auto file = load_kernel_file(path);
    const bool as_program = args.has("--as-program");
    const bool has_main = file && main_function_line(file->source) > 0;
    const bool program = file && has_main && (as_program || !file->spec.has_metadata);
    if (!program) {
        if (as_program && file)
            return make_error(ErrorKind::UserInput, path.filename().string() + " has no main(), so it is not a program",
                              "run it without --as-program (its header says how), or add a main()");
        if (split.separator || !split.include_dirs.empty() || args.has("--time-limit") || args.has("--capture") ||
            args.has("--save-launch"))
            return make_error(ErrorKind::UserInput,
                              "program arguments after `--`, -I, --time-limit, --capture and --save-launch are for whole programs (a file with "
                              "a main()), and " + path.filename().string() + " has " +
                                  (has_main ? "a playground header (add --as-program to run its main())"
                                            : "no main()"),
                              "run it without them, or run the program file");
        return std::optional<ProgramCommand>();
    }
    // Options of a header's run mean nothing to a program: refused, not ignored.
    static const std::vector<std::string> kept = {"--backend",    "--json",    "--time-limit", "--as-program",
                                                  "--capture",    "--capture-limit", "--save-launch",
                                                  "--out-dir",    "--help"};
    for (const auto& [name, values] : args.values)
        if (std::find(kept.begin(), kept.end(), name) == kept.end())
            return make_error(ErrorKind::UserInput,
                              "`" + name + "` is for kernel files with a playground header; " +
                                  path.filename().string() + " is a whole program (it has a main())",
                              "a program chooses its own grid, block and sizes: pass it arguments after `--`, e.g. "
                              "`cuda-playground run " + args.positional[0] + " -- 1000`");
    ProgramCommand command;
    command.file = path;
    command.source = file->source;
    command.program_args = split.program_args;
    for (const std::string& dir : split.include_dirs) {
        std::error_code ec;
        if (!std::filesystem::is_directory(dir, ec))
            return make_error(ErrorKind::UserInput, "-I " + dir + ": no such folder",
                              "give the folder the program's headers are in, e.g. -I ../Common");
        command.include_dirs.push_back(dir);
    }
    if (auto refused = read_common_options(args, command)) return *refused;
    if (auto refused = read_capture_options(args, path, command)) return *refused;
    return std::optional<ProgramCommand>(std::move(command));
}

}  // namespace cp::cli
