// Command-line parsing for the cuda-playground subcommands.
#include "cli/args.h"

#include "core/engine/launch_validation.h"
#include "core/text_util.h"
#include "core/backends/registry.h"

#include <algorithm>
#include <cstdlib>

namespace cp::cli {

std::string Args::get(const std::string& name, const std::string& fallback) const {
    auto it = values.find(name);
    return it == values.end() || it->second.empty() ? fallback : it->second.back();
}

const std::vector<std::string>& Args::all(const std::string& name) const {
    static const std::vector<std::string> none;
    auto it = values.find(name);
    return it == values.end() ? none : it->second;
}

Result<Args> parse_args(const std::vector<std::string>& argv, const std::vector<OptionSpec>& options) {
    Args args;
    std::vector<std::string> names;
    for (const auto& o : options) names.push_back(o.name);
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a == "--help" || a == "-h") {
            args.values["--help"].push_back("");
            continue;
        }
        if (a.size() < 2 || a[0] != '-' || a == "-") {
            args.positional.push_back(a);
            continue;
        }
        std::string name = a, value;
        bool inline_value = false;
        if (auto eq = a.find('='); eq != std::string::npos) {
            name = a.substr(0, eq);
            value = a.substr(eq + 1);
            inline_value = true;
        }
        auto spec = std::find_if(options.begin(), options.end(), [&](const OptionSpec& o) { return o.name == name; });
        if (spec == options.end()) {
            const std::string guess = closest_name(name, names);
            return make_error(
                ErrorKind::UserInput, "unknown option `" + name + "`",
                guess.empty() ? "see --help for the options" : "did you mean `" + guess + "`? (see --help)");
        }
        if (spec->optional_value && !inline_value) {
            if (i + 1 < argv.size() && !argv[i + 1].empty() && argv[i + 1][0] != '-') value = argv[++i];
        } else if (spec->takes_value && !inline_value) {
            if (i + 1 >= argv.size())
                return make_error(ErrorKind::UserInput, "option `" + name + "` needs a value", "see --help");
            value = argv[++i];
        } else if (!spec->takes_value && !spec->optional_value && inline_value) {
            return make_error(ErrorKind::UserInput, "option `" + name + "` takes no value");
        }
        auto& slot = args.values[name];
        if (!slot.empty() && !spec->repeatable) {
            return make_error(ErrorKind::UserInput, "option `" + name + "` is given more than once", "give it once");
        }
        slot.push_back(value);
    }
    return args;
}

Result<std::vector<std::pair<std::string, std::string>>> parse_sets(const Args& args) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& s : args.all("--set")) {
        const auto eq = s.find('=');
        if (eq == std::string::npos || eq == 0)
            return make_error(ErrorKind::UserInput, "`--set " + s + "` is not NAME=VALUE", "e.g. --set n=1000");
        out.emplace_back(s.substr(0, eq), s.substr(eq + 1));
    }
    return out;
}

Result<LaunchOptions> parse_launch_options(const Args& args) {
    LaunchOptions out;
    auto backend = check_backend_name(args.get("--backend", "auto"));
    if (!backend) return backend.error();
    out.backend = *backend;
    out.remote = args.get("--remote");
    if (!args.has("--remote"))
        if (const char* env = std::getenv("CUDA_PLAYGROUND_REMOTE")) out.remote = env;
    auto sets = parse_sets(args);
    if (!sets) return sets.error();
    out.sets = std::move(*sets);
    for (const char* opt : {"--block", "--grid"}) {
        if (!args.has(opt)) continue;
        auto d = parse_dim3(args.get(opt));
        if (!d) {
            const std::string o = opt;
            return make_error(d.error().kind, "`" + o + " " + args.get(opt) + "`: " + d.error().message,
                              o == "--block"
                                  ? "write 1 to 3 whole numbers separated by x, e.g. --block 256 or --block 16x16"
                                  : "write 1 to 3 whole numbers separated by x, e.g. --grid 64 or --grid 38x25 (or "
                                    "leave --grid out: the file computes it)");
        }
        (std::string(opt) == "--block" ? out.block : out.grid) = *d;
    }
    if (args.has("--until-step")) {
        auto k = parse_whole_number("--until-step", args.get("--until-step"), 1, 1000000);
        if (!k) return k.error();
        out.until_step = int(*k);
    }
    return out;
}

std::string backend_option_help(int column) {
    std::string line = "  --backend NAME";
    line.resize(size_t(std::max<int>(column, int(line.size()) + 1)), ' ');
    std::string choices = backend_choices_text();  // "auto, cuda or cpu"
    choices.insert(4, " (default)");
    std::string remote = "  --remote PREFIX";
    remote.resize(size_t(std::max<int>(column, int(remote.size()) + 1)), ' ');
    return line + "where kernels run: " + choices + " (with --remote: on the server)\n" + remote +
           "run kernels on a server through `PREFIX cuda-playground worker --stdio`,\n" +
           std::string(size_t(column), ' ') + "e.g. \"ssh gpu01\" (also CUDA_PLAYGROUND_REMOTE)\n";
}

Result<int> parse_whole_number(const std::string& option, const std::string& text, int min, int max) {
    try {
        size_t used = 0;
        const long v = std::stol(text, &used);
        if (used == text.size() && v >= min && v <= max) return int(v);
    } catch (...) {
    }
    return make_error(ErrorKind::UserInput, "`" + option + " " + text + "`: expected a whole number from " +
                                                std::to_string(min) + " to " + std::to_string(max));
}

Result<int> parse_positive_int(const std::string& option, const std::string& text) {
    return parse_whole_number(option, text, 1, 1000000);
}

}  // namespace cp::cli
