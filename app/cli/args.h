// A small command-line parser: options with or without values, repeatable options, positionals,
// and errors that suggest the closest known option.
#pragma once

#include "core/engine/backend.h"
#include "core/result.h"
#include "core/types.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cp::cli {

struct OptionSpec {
    std::string name;        // "--block"
    bool takes_value = false;
    bool repeatable = false;
    // Takes the next argument as its value only when one follows that is not an option (`--compare` alone is
    // the flag, with the value "").
    bool optional_value = false;
};

struct Args {
    std::vector<std::string> positional;
    std::map<std::string, std::vector<std::string>> values;  // option -> values (flags get "")

    bool has(const std::string& name) const { return values.count(name) != 0; }
    std::string get(const std::string& name, const std::string& fallback = {}) const;
    const std::vector<std::string>& all(const std::string& name) const;
};

// Accepts "--opt value" and "--opt=value". "--help"/"-h" is always accepted as a flag.
Result<Args> parse_args(const std::vector<std::string>& argv, const std::vector<OptionSpec>& options);

// The options `run` and the window share: --backend, --set NAME=VALUE (repeatable), --block, --grid.
struct LaunchOptions {
    std::string backend = "auto";  // "auto" or a name from the backend registry
    std::vector<std::pair<std::string, std::string>> sets;
    std::optional<Dim3> block, grid;
    std::optional<int> until_step;  // --until-step K (`run` only)
    // --remote PREFIX (else CUDA_PLAYGROUND_REMOTE): kernels run in `PREFIX cuda-playground worker --stdio`
    // (core/remote/remote_backend.h) with `backend` on that side. Empty: here.
    std::string remote;
};
// Each `--set NAME=VALUE`, in order (an Error for one without `=` or a name).
Result<std::vector<std::pair<std::string, std::string>>> parse_sets(const Args& args);
Result<LaunchOptions> parse_launch_options(const Args& args);
// The help lines of --backend, from the registry ("--backend NAME  where kernels run: auto (default), cuda or
// cpu"), and of --remote.
std::string backend_option_help(int column);

// "--repeat 20": a whole number in [min, max]; the error names the option and the range.
Result<int> parse_whole_number(const std::string& option, const std::string& text, int min, int max);
Result<int> parse_positive_int(const std::string& option, const std::string& text);  // 1 to 1000000

}  // namespace cp::cli
