// `cuda-playground list`: the kernel library with titles, by category.
#include "cli/args.h"
#include "cli/commands.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/report_json.h"

#include <nlohmann/json.hpp>

#include <iostream>

namespace cp::cli {

namespace {
const char* kListUsage = R"(usage: cuda-playground list [--json]

Lists the kernel library (kernels/**/*.cu) by category, with each kernel's title.
Run one with `cuda-playground run <path or name>`.

  --json    print {schema_version, kernels}: kernels is an array of {path, name, kernel, title, category, tags,
            problems} (docs/schema/list.schema.json)

Exit status: 0 listed, 1 a mistake in the command, 3 an internal error (a bug: please report it).
)";
}

int cmd_list(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {{"--json"}});
    if (!args) return user_error(args.error());
    if (args->has("--help")) {
        std::cout << kListUsage;
        return 0;
    }
    if (!args->positional.empty()) return user_error("`list` takes no file arguments", "see `cuda-playground list --help`");
    const auto dir = kernels_dir();
    const auto library = scan_library(dir);
    if (args->has("--json")) {
        nlohmann::json kernels = nlohmann::json::array();
        for (const auto& k : library) {
            nlohmann::json problems = nlohmann::json::array();
            for (const auto& d : k.diagnostics) problems.push_back(d.str());
            kernels.push_back({{"path", k.path.string()},
                               {"name", std::filesystem::relative(k.path, dir).replace_extension().string()},
                               {"kernel", k.signature ? k.signature->name : ""},
                               {"title", k.spec.title},
                               {"category", k.spec.category},
                               {"tags", k.spec.tags},
                               {"problems", problems}});
        }
        const nlohmann::json out{{"schema_version", kListSchemaVersion}, {"kernels", kernels}};
        std::cout << json_text(out) << "\n";
        return 0;
    }
    if (library.empty()) {
        std::cout << "No kernels found in " << dir.string() << "\n"
                  << "  hint: set CUDA_PLAYGROUND_KERNELS to the folder that holds the .cu kernel files\n";
        return 0;
    }
    std::string category;
    for (const auto& k : library) {
        if (k.spec.category != category) {
            category = k.spec.category;
            std::cout << (category.empty() ? "Uncategorised" : category) << "\n";
        }
        const std::string name = std::filesystem::relative(k.path, dir).replace_extension().string();
        std::cout << "  " << name;
        if (name.size() < 28) std::cout << std::string(28 - name.size(), ' ');
        std::cout << "  " << (k.spec.title.empty() ? "(no title)" : k.spec.title);
        if (has_errors(k.diagnostics)) std::cout << "   [has errors: run `cuda-playground compile` on it]";
        std::cout << "\n";
    }
    return 0;
}

}  // namespace cp::cli
