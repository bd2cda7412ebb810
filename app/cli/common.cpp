// Helpers shared by the subcommands: locating kernel files and printing user errors.
#include "cli/commands.h"
#include "core/kernel_file/kernel_file.h"

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
