// Helpers shared by the subcommands: locating kernel files and printing user errors.
#include "cli/commands.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/assignment.h"

#include <iostream>

namespace cp::cli {

std::filesystem::path find_kernel_path(const std::string& file) {
    std::error_code ec;
    const std::filesystem::path given(file);
    if (std::filesystem::exists(given, ec)) return given;
    const auto lib = kernels_dir();
    for (const auto& candidate : {lib / given, lib / (file + ".cu")}) {
        if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
    }
    // A bare name such as "box_blur": search the library's folders.
    if (given.parent_path().empty()) {
        for (auto it = std::filesystem::recursive_directory_iterator(lib, ec); !ec && it != decltype(it)(); it.increment(ec)) {
            const auto stem = it->path().stem().string();
            if (it->path().extension() == ".cu" && (stem == file || it->path().filename() == file)) return it->path();
        }
    }
    return given;  // load_kernel_file reports it missing
}

Result<KernelFile> load_assignment(const std::string& file) {
    const auto path = find_kernel_path(file);
    auto assignment = load_kernel_file(path);
    if (!assignment) return assignment.error();
    for (const Diagnostic& d : assignment->diagnostics)
        if (d.severity == Severity::Error) std::cerr << d.str() << "\n";
    const std::string name = path.filename().string();
    if (has_errors(assignment->diagnostics) || !assignment->signature)
        return make_error(ErrorKind::Metadata, "`" + name + "` has errors in its header or kernel (above)",
                          "fix them; `cuda-playground run` shows the same");
    if (!assignment->spec.grade.enabled())
        return make_error(ErrorKind::UserInput, "`" + name + "` is not an assignment: it has no `grade` lines",
                          "add `grade case NAME: n = 1000003` lines for the hidden inputs (kernels/FORMAT.md, Assignments)");
    if (auto cases = grade_case_choices(*assignment); !cases) return cases.error();
    return assignment;
}

int user_error(const std::string& message, const std::string& hint) {
    std::cerr << "error: " << message << "\n";
    if (!hint.empty()) std::cerr << "  hint: " << hint << "\n";
    return 1;
}

int user_error(const Error& error) {
    if (error.kind != ErrorKind::Internal) return user_error(error.message, error.hint);
    std::cerr << "internal error: " << error.message << "\n";
    if (!error.hint.empty()) std::cerr << "  hint: " << error.hint << "\n";
    std::cerr << "  please report this with the command you ran\n";
    return 3;
}

}  // namespace cp::cli
