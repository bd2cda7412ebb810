// Kernel files on disk: reading one (with plain-words errors), parsing it, finding the library and
// asset folders, and scanning the library.
#include "core/kernel_file/kernel_file.h"
#include "core/kernel_file/file_limits.h"

#include "core/kernel_file/constant_fill.h"
#include "core/kernel_file/host_code.h"
#include "core/kernel_file/kernel_file_parts.h"
#include "core/kernel_file/kernel_scan.h"
#include "core/kernel_file/program_file.h"
#include "core/kernel_file/reference_section.h"
#include "core/text_util.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>
#include <unistd.h>
#include "cp_build_paths.h"

namespace cp {

namespace fs = std::filesystem;

std::string kernel_file_too_large_message(const std::string& file, size_t bytes) {
    char size[32];
    std::snprintf(size, sizeof size, "%.1f MiB", double(bytes) / double(1 << 20));
    return "`" + file + "` is " + size + " (" + std::to_string(bytes) + " bytes); kernel files are limited to " +
           std::to_string(kKernelFileMaxBytes >> 20) + " MiB";
}

namespace {

// `extern __shared__ T name[];` with no `shared:` line: the launch gives 0 bytes, and the first access
// faults at a null pointer, which says nothing about the missing line. Named here, with the line to add.
void check_dynamic_shared(KernelFile& f) {
    if (f.spec.launch.shared_expr != "0") return;
    for (const StepSpec& st : f.spec.steps)
        if (!st.shared_expr.empty() && st.shared_expr != "0") return;
    const std::string& s = f.compile_source;
    const std::vector<CodeToken> tokens = tokenize_code(s);
    auto word = [&](size_t k) { return std::string_view(s).substr(tokens[k].begin, tokens[k].end - tokens[k].begin); };
    for (size_t k = 0; k + 1 < tokens.size(); ++k) {
        if (tokens[k].kind != CodeToken::Ident || word(k) != "extern" || word(k + 1) != "__shared__") continue;
        // The element type (the words before `name [`) sizes the suggestion: block.x elements of it.
        size_t end = k + 2;
        while (end < tokens.size() && !(tokens[end].kind == CodeToken::Punct && (s[tokens[end].begin] == ';' ||
                                                                                 s[tokens[end].begin] == '[')))
            ++end;
        std::string type, name;
        for (size_t m = k + 2; m < end; ++m) {
            if (tokens[m].kind != CodeToken::Ident || word(m) == "__align__" || word(m) == "alignas" ||
                word(m) == "__attribute__" || word(m) == "aligned")
                continue;
            if (!name.empty()) type += (type.empty() ? "" : " ") + name;
            name = std::string(word(m));
        }
        std::string size = "4";
        if (type == "double" || type == "long long" || type == "int64_t" || type == "uint64_t" || type == "size_t")
            size = "8";
        else if (type == "char" || type == "unsigned char" || type == "uint8_t" || type == "int8_t" || type == "bool")
            size = "1";
        else if (type == "short" || type == "unsigned short" || type == "uint16_t" || type == "int16_t")
            size = "2";
        const std::string line = "shared: block.x * " + size;
        // An error in a lesson (its header is where the launch is described); a warning in a file without a
        // header, which may be only compiled.
        f.diagnostics.push_back(make_diagnostic(
            f.path.string(), tokens[k].line, 0, f.spec.has_metadata ? Severity::Error : Severity::Warning,
            "`extern __shared__" + (type.empty() ? std::string() : " " + type) + " " + name +
                "[]` gets no memory: " +
                (f.spec.has_metadata ? "the header has no `shared:` line" : "this file has no header with a `shared:` line") +
                ", so each block's dynamic shared memory is 0 bytes. Add the line `" + line +
                "` to the header (the bytes one block uses: here one " + (type.empty() ? "element" : type) +
                " per thread)."));
        return;  // one message: the same line fixes every declaration
    }
}

}  // namespace

KernelFile parse_kernel_source(std::string source, fs::path path, const std::string& kernel) {
    KernelFile f;
    f.path = std::move(path);
    f.source = std::move(source);
    const std::string file = f.path.string();
    if (f.source.size() > kKernelFileMaxBytes) {
        // Refused before any scan: the text is kept (an editor still shows it) but nothing is compiled.
        f.diagnostics.push_back(make_diagnostic(
            file, 0, 0, Severity::Error,
            kernel_file_too_large_message(file, f.source.size()) +
                ". Keep the kernels (and the functions they call) in the file and leave the rest out."));
        return f;
    }
    const HostCodeScan host = separate_host_code(f.source);
    f.compile_source = host.kernel_source;
    HeaderState state;
    parse_header(f.source, file, f.spec, f.diagnostics, state);
    if (!host.parts.empty())
        f.diagnostics.insert(f.diagnostics.begin(),
                             host_code_note(file, host, !f.spec.has_metadata && main_function_line(f.source) > 0));
    check_header(file, f.spec, f.diagnostics, state);
    if (!kernel.empty()) {
        f.spec.kernel = kernel;
        f.spec.steps.clear();  // a kernel chosen from outside (--compare) runs alone, with the file's launch lines
    }
    if (state.unterminated) return f;  // the rest of the file is inside the comment
    if (!f.spec.steps.empty()) {
        check_steps(f, state);
    } else {
        f.signature = parse_signature(f.source, file, f.diagnostics, f.spec.kernel, f.spec.kernel_line);
        if (f.signature) cross_check(f.spec, *f.signature, state, file, f.diagnostics);
    }
    check_dynamic_shared(f);
    check_and_fill_constants(f);  // after the header: its `constant` lines fill the file's __constant__ variables
    if (f.spec.has_metadata) check_reference(f, state.reference_line);
    if (!f.spec.compare.empty() && kernel.empty()) check_compare(f, state);
    std::stable_sort(f.diagnostics.begin(), f.diagnostics.end(),
                     [](const Diagnostic& a, const Diagnostic& b) { return a.line < b.line; });
    return f;
}

bool variant_names_a_file(const std::string& variant) {
    return variant.find('/') != std::string::npos ||
           (variant.size() > 3 && variant.compare(variant.size() - 3, 3, ".cu") == 0);
}

std::string closest_library_kernel(const std::string& given) {
    // Compare like with like: "image/boxblur" with "image/box_blur", "boxblur" with "box_blur"; a path
    // into the library (kernels/image/boxblur.cu) by its part after the library folder.
    std::string word = given;
    const std::string lib = kernels_dir().string() + "/";
    if (word.rfind(lib, 0) == 0) word = word.substr(lib.size());
    if (word.size() > 3 && word.compare(word.size() - 3, 3, ".cu") == 0) word.resize(word.size() - 3);
    const bool with_folder = word.find('/') != std::string::npos;
    std::vector<std::string> names, full;
    std::error_code ec;
    const fs::path dir = kernels_dir();
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->path().extension() != ".cu") continue;
        fs::path rel = it->path().lexically_relative(dir);
        rel.replace_extension();
        full.push_back(rel.generic_string());
        names.push_back(with_folder ? rel.generic_string() : rel.filename().string());
    }
    const std::string best = closest_name(word, names);
    if (best.empty() || best == word) return "";
    for (size_t i = 0; i < names.size(); ++i)
        if (names[i] == best) return full[i];
    return "";
}

Result<KernelFile> load_kernel_file(const fs::path& path) {
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
        if (const std::string guess = closest_library_kernel(path.string()); !guess.empty())
            return make_error(ErrorKind::Io, "kernel file `" + path.string() + "` does not exist",
                              "Did you mean `" + guess + "`? (`cuda-playground list` shows the library)");
        return make_error(ErrorKind::Io, "kernel file `" + path.string() + "` does not exist",
                          "Check the path; library kernels are under " + kernels_dir().string() +
                              " (`cuda-playground list` shows them).");
    }
    // A folder or a file over the limit is a choice to change (user_input); a missing, unreadable or damaged
    // file is io, as for images.
    if (fs::is_directory(status)) {
        return make_error(ErrorKind::UserInput, "`" + path.string() + "` is a folder, not a kernel file",
                          "Give the path of a .cu file inside it.");
    }
    if (const auto bytes = fs::file_size(path, ec); !ec && bytes > kKernelFileMaxBytes) {
        return make_error(ErrorKind::UserInput, kernel_file_too_large_message(path.string(), size_t(bytes)),
                          "Keep the kernels (and the functions they call) in the file and leave the rest out.");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return make_error(ErrorKind::Io, "cannot read kernel file `" + path.string() + "`: " + std::strerror(errno),
                          "Check that you have permission to read it.");
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return make_error(ErrorKind::Io, "reading kernel file `" + path.string() + "` failed part-way");
    std::string source = text.str();
    if (source.empty()) {
        return make_error(
            ErrorKind::Io, "kernel file `" + path.string() + "` is empty",
            "Start from a library kernel, e.g. " + (kernels_dir() / "basics" / "vector_add.cu").string() + ".");
    }
    if (source.find('\0') != std::string::npos) {
        return make_error(ErrorKind::Io, "`" + path.string() + "` is not a text file (it contains NUL bytes)",
                          "Kernel files are CUDA C++ source text (.cu); compiled files cannot be loaded.");
    }
    // NVRTC reads the byte 0xFF as the end of the file: what follows would vanish without a word (or leave a
    // "comment unclosed" error on line 1). UTF-8 text never contains it.
    if (const size_t ff = source.find('\xFF'); ff != std::string::npos) {
        const auto line = 1 + std::count(source.begin(), source.begin() + static_cast<long>(ff), '\n');
        return make_error(
            ErrorKind::Io,
            "`" + path.string() + "` line " + std::to_string(line) +
                " holds the byte 0xFF, which the CUDA compiler takes for the end of the file",
            "Save the file as UTF-8 (an editor's \"encoding\" setting); 0xFF never occurs in UTF-8 text.");
    }
    return parse_kernel_source(std::move(source), path);
}

namespace {

fs::path executable_dir() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::current_path(ec) : exe.parent_path();
}

fs::path locate(const char* env_var, const char* built_in, const char* folder) {
    if (const char* env = std::getenv(env_var); env && *env) return env;
    std::error_code ec;
    if (built_in && *built_in && fs::is_directory(built_in, ec)) return built_in;
    return executable_dir() / folder;
}

}  // namespace

fs::path kernels_dir() {
#ifdef CP_SOURCE_KERNELS_DIR
    return locate("CUDA_PLAYGROUND_KERNELS", CP_SOURCE_KERNELS_DIR, "kernels");
#else
    return locate("CUDA_PLAYGROUND_KERNELS", nullptr, "kernels");
#endif
}

fs::path assets_dir() {
#ifdef CP_SOURCE_ASSETS_DIR
    return locate("CUDA_PLAYGROUND_ASSETS", CP_SOURCE_ASSETS_DIR, "assets");
#else
    return locate("CUDA_PLAYGROUND_ASSETS", nullptr, "assets");
#endif
}

fs::path python_dir() {
#ifdef CP_SOURCE_PYTHON_DIR
    return locate("CUDA_PLAYGROUND_PYTHON_DIR", CP_SOURCE_PYTHON_DIR, "python");
#else
    return locate("CUDA_PLAYGROUND_PYTHON_DIR", nullptr, "python");
#endif
}

std::vector<KernelFile> scan_library(const fs::path& dir) {
    std::vector<KernelFile> files;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
        if (!it->is_regular_file(ec) || it->path().extension() != ".cu") continue;
        auto loaded = load_kernel_file(it->path());
        if (loaded) {
            files.push_back(std::move(*loaded));
        } else {
            // Keep unreadable files in the list so the user sees why they are not usable.
            KernelFile broken;
            broken.path = it->path();
            broken.diagnostics.push_back(
                make_diagnostic(it->path().string(), 0, 0, Severity::Error, loaded.error().full()));
            files.push_back(std::move(broken));
        }
    }
    auto title_of = [](const KernelFile& f) { return f.spec.title.empty() ? f.path.filename().string() : f.spec.title; };
    std::sort(files.begin(), files.end(), [&](const KernelFile& a, const KernelFile& b) {
        if (a.spec.category != b.spec.category) return a.spec.category < b.spec.category;
        if (title_of(a) != title_of(b)) return title_of(a) < title_of(b);
        return a.path < b.path;
    });
    return files;
}

std::vector<ViewSpec> shown_views(const KernelSpec& spec) {
    if (!spec.views.empty()) return spec.views;
    std::vector<ViewSpec> out;
    for (const BufferSpec& b : spec.buffers) {
        if (b.direction == Direction::In) continue;
        ViewSpec v;
        v.kind = ViewSpec::Kind::Plot;
        v.buffer = b.name;
        out.push_back(v);
    }
    return out;
}

}  // namespace cp
