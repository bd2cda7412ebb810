// A program's launch written out as a lesson with its captured data (program_lesson.h).
#include "core/session/program_lesson.h"

#include "core/data/data_file.h"
#include "core/kernel_file/kernel_file.h"
#include "core/kernel_file/local_includes.h"
#include "core/session/program_replay.h"
#include "core/session/scalar_arg.h"
#include "core/text_util.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

namespace cp {

namespace {

Error refusal(const std::string& why, const std::string& hint = {}) {
    return make_error(ErrorKind::Unsupported, "this launch cannot be saved as a lesson: " + why,
                      hint.empty() ? std::string("re-run it in the Program panel, or run the whole program again") : hint);
}

std::string dims_text(const Dim3& d) {
    std::string t = std::to_string(d.x);
    if (d.y > 1 || d.z > 1) t += " x " + std::to_string(d.y);
    if (d.z > 1) t += " x " + std::to_string(d.z);
    return t;
}

std::string number_text(double v) {
    char text[64];
    if (v == std::floor(v) && std::fabs(v) < 1e15)
        std::snprintf(text, sizeof text, "%.0f", v);
    else
        std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}

// The largest magnitude of a float or double buffer's components (0 for other types).
double largest_magnitude(const std::vector<std::byte>& bytes, ElemType type) {
    const ElemTypeInfo& info = elem_info(type);
    if (!info.is_float) return 0;
    double m = 0;
    const size_t n = bytes.size() / info.component_size;
    for (size_t i = 0; i < n; ++i) {
        double v = 0;
        if (info.component_size == 4) {
            float f;
            std::memcpy(&f, bytes.data() + i * 4, 4);
            v = f;
        } else {
            std::memcpy(&v, bytes.data() + i * 8, 8);
        }
        if (std::isfinite(v)) m = std::max(m, std::fabs(v));
    }
    return m;
}

// A name usable as a file name: the buffer's (`d_in`), else its argument's position.
std::string file_stem(const std::string& name, size_t index) {
    bool ok = !name.empty();
    for (const char c : name) ok = ok && (is_ident_char(c));
    return ok ? name : "arg" + std::to_string(index + 1);
}

}  // namespace

Result<ProgramLesson> lesson_from_launch(const ProgramRequest& program, const ProgramRun& run, size_t index) {
    if (auto why = replay_refusal(run, index)) return refusal(*why);
    const ProgramLaunch& l = run.launches[index];
    // A script's launch: the lesson is made of its module (without the blank lines that put it on the script's
    // lines), not of the script.
    ProgramRequest from_module;
    if (!l.module_source.empty()) {
        from_module = program;
        from_module.source = l.module_source.substr(std::min(l.module_source.find_first_not_of("\n"), l.module_source.size()));
        from_module.include_dirs = l.module_include_dirs;
    }
    const ProgramRequest& request = l.module_source.empty() ? program : from_module;
    for (const char* symbol_call : {"cudaMemcpyToSymbol", "cudaMemcpyFromSymbol", "cudaGetSymbolAddress", "__managed__"}) {
        if (request.source.find(symbol_call) != std::string::npos) {
            return refusal(std::string("the program uses `") + symbol_call +
                               "`: a lesson made of one launch holds its buffers and scalars, not the values of "
                               "`__constant__`, `__device__` or `__managed__` variables the host code sets",
                           "re-run the launch in the Program panel instead (it keeps those values)");
        }
    }
    std::vector<Diagnostic> diagnostics;
    const std::optional<KernelSignature> sig = parse_signature(request.source, request.path, diagnostics, l.instance);
    if (!sig) return refusal("the kernel `" + l.instance + "` was not found in the file as a __global__ function");
    if (sig->params.size() != l.args.size()) {
        return refusal("`" + l.instance + "` takes " + std::to_string(sig->params.size()) + " parameters and the launch " +
                       "passed " + std::to_string(l.args.size()));
    }

    const std::string stem = std::filesystem::path(request.path).stem().string();
    ProgramLesson lesson;
    std::vector<std::string> buffer_lines, param_lines, result_lines;
    std::set<std::string> allocations;
    double tolerance = 0;
    std::vector<std::pair<std::string, uint64_t>> outputs;  // buffers the kernel may write: name, elements
    std::vector<std::pair<std::string, uint64_t>> sizes;    // whole-number scalars above 0: name, value
    for (size_t i = 0; i < l.args.size(); ++i) {
        const ProgramArg& a = l.args[i];
        const SignatureParam& p = sig->params[i];
        if (p.name.empty()) return refusal("parameter " + std::to_string(i + 1) + " of `" + sig->name + "` has no name");
        if (a.pointer) {
            const auto found = std::find_if(l.buffers.begin(), l.buffers.end(),
                                            [&](const ProgramBuffer& b) { return b.name == a.buffer; });
            if (found == l.buffers.end()) return refusal("`" + p.name + "` points into no captured allocation");
            const std::optional<ElemType> type = p.is_pointer ? parse_elem_type(p.base_type) : std::nullopt;
            if (!type) {
                return refusal("`" + p.name + "` is a `" + p.type_text + "`, and a lesson's buffer holds one of " +
                               join(elem_type_names(), ", "));
            }
            const uint32_t size = elem_info(*type).size;
            if (a.offset % size != 0) {
                return refusal("`" + p.name + "` is " + std::to_string(a.offset) + " bytes into `" + a.buffer +
                               "`, not a whole number of " + elem_info(*type).name + " elements");
            }
            if (!allocations.insert(a.buffer).second) {
                return refusal("`" + a.buffer + "` is passed twice (also as `" + p.name + "`), and a lesson's buffers " +
                               "are separate arrays");
            }
            if (found->bytes % size != 0) {
                return refusal("`" + a.buffer + "` holds " + std::to_string(found->bytes) + " bytes, not a whole number " +
                               "of " + elem_info(*type).name + " elements");
            }
            const std::string file = file_stem(p.name, i);
            const bool in = points_to_const(p);
            buffer_lines.push_back("buffer " + p.name + ": " + elem_info(*type).name + "[" +
                                   std::to_string(found->bytes / size) + "] " + (in ? "in" : "inout") + " data(\"" +
                                   file + ".bin\")" +
                                   (a.offset ? " offset " + std::to_string(a.offset / size) : std::string()));
            lesson.files.push_back({file + ".bin", captured_bytes(run.capture_data, found->before_at, found->bytes)});
            if (!in) {
                result_lines.push_back("result " + p.name + ": data(\"" + file + ".after.bin\")");
                std::vector<std::byte> after = captured_bytes(run.capture_data, found->after_at, found->bytes);
                // Float results: a backend with other rounding (fused multiply-adds, another order of a sum) may
                // differ in the last bits; integers must match exactly.
                if (elem_info(*type).is_float) tolerance = std::max(tolerance, 4e-6 * std::max(1.0, largest_magnitude(after, *type)));
                lesson.files.push_back({file + ".after.bin", std::move(after)});
                outputs.emplace_back(p.name, found->bytes / size);
            }
        } else {
            const auto layout = p.is_pointer ? std::nullopt : scalar_layout(p.base_type);
            const auto value = layout ? scalar_value(p.base_type, bytes_of_hex(a.bytes_hex)) : std::nullopt;
            if (!value) {
                return refusal("`" + p.name + "` is a `" + p.type_text + "` of " + std::to_string(a.size) + " bytes, " +
                               "and a lesson's parameter is a number (int, unsigned, float, double, long long, size_t)");
            }
            // The header's type: a float or double as declared; a whole number as int, uint, or double past those.
            std::string type = layout->kind == ScalarLayout::Kind::Float ? (layout->size == 8 ? "double" : "float") : "";
            if (type.empty()) {
                if (*value >= -2147483648.0 && *value <= 2147483647.0) type = "int";
                else if (*value >= 0 && *value <= 4294967295.0) type = "uint";
                else if (std::fabs(*value) <= 9007199254740992.0) type = "double";
                else return refusal("`" + p.name + "` = " + number_text(*value) + " is too large for a parameter");
            }
            param_lines.push_back("param " + p.name + ": " + type + " = " + number_text(*value));
            if (layout->kind != ScalarLayout::Kind::Float && *value > 0) sizes.emplace_back(p.name, uint64_t(*value));
        }
    }

    // A picture where two whole-number arguments multiply to an output's count (`img` of `width * height`): shown
    // as an image of that size, the first of the two as its width (row-major, as `y * width + x` indexes it).
    std::vector<std::string> view_lines;
    for (const auto& [buffer, count] : outputs) {
        bool found = false;
        for (size_t i = 0; i < sizes.size() && !found; ++i)
            for (size_t j = i + 1; j < sizes.size() && !found; ++j)
                if (sizes[i].second > 1 && sizes[j].second > 1 && sizes[i].second * sizes[j].second == count) {
                    view_lines.push_back("view " + buffer + ": image(" + sizes[i].first + ", " + sizes[j].first + ")");
                    found = true;
                }
    }

    // The domain the threads cover, where the arguments say it: an output of `n` elements (one a thread, as the
    // launch strip and the grid's check take it), or the picture's width x height.
    std::string problem_line;
    for (const auto& [buffer, count] : outputs) {
        for (const auto& [name, value] : sizes)
            if (problem_line.empty() && value == count) problem_line = "problem: " + name;
    }
    for (const auto& line : view_lines) {
        if (!problem_line.empty()) break;
        const size_t open = line.find("image(");
        std::string dims = line.substr(open + 6, line.size() - open - 7);
        const size_t comma = dims.find(", ");
        problem_line = "problem: " + dims.substr(0, comma) + " x " + dims.substr(comma + 2);
    }

    std::string h;
    h += "/*@playground\n";
    h += "title: " + l.instance + ", launch " + std::to_string(index + 1) + " of " + stem + "\n";
    h += "category: From programs\n";
    h += "about: Launch " + std::to_string(index + 1) + " of " + std::filesystem::path(request.path).filename().string() +
         " (line " + std::to_string(l.line) + "), saved with the inputs it had and the outputs it left (the data "
         "files beside this one). The outputs are checked against what the " +
         (l.module_source.empty() ? std::string("program computed; change the block or the grid and see what changes. "
                                                "The program's main() below is not run here: `cuda-playground run "
                                                "--as-program` runs it.\n")
                                  : std::string("script computed; change the block or the grid and see what changes. "
                                                "The script itself runs with `cuda-playground run SCRIPT.py`.\n"));
    h += "kernel: " + l.instance + "\n";
    for (const auto& line : param_lines) h += line + "\n";
    for (const auto& line : buffer_lines) h += line + "\n";
    for (const auto& line : result_lines) h += line + "\n";
    for (const auto& line : view_lines) h += line + "\n";
    h += "block: " + dims_text(l.block) + "\n";
    h += "grid: " + dims_text(l.grid) + "\n";
    if (l.shared_bytes) h += "shared: " + std::to_string(l.shared_bytes) + "\n";
    if (!problem_line.empty()) h += problem_line + "\n";
    if (tolerance > 0) {
        char text[64];
        std::snprintf(text, sizeof text, "%.3g", tolerance);
        h += std::string("tolerance: ") + text + "\n";
    }
    h += "*/\n";

    lesson.file_name = file_stem(sig->name, 0) + ".cu";
    lesson.source = h + request.source;
    // The program's own headers, so the lesson compiles where it is written.
    const LocalIncludes includes = resolve_local_includes(request.source, request.path, false, request.include_dirs);
    for (const LocalHeader& header : includes.headers) {
        const auto* start = reinterpret_cast<const std::byte*>(header.contents.data());
        lesson.files.push_back({header.name, std::vector<std::byte>(start, start + header.contents.size())});
    }
    return lesson;
}

Result<std::filesystem::path> write_program_lesson(const ProgramLesson& lesson, const std::filesystem::path& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return make_error(ErrorKind::Io, "could not make the folder `" + dir.string() + "`: " + ec.message());
    for (const ProgramLessonFile& f : lesson.files) {
        const std::filesystem::path path = dir / f.name;
        if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
        if (auto saved = save_data_file(path, f.bytes.data(), f.bytes.size()); !saved) return saved.error();
    }
    const std::filesystem::path kernel = dir / lesson.file_name;
    const auto* text = reinterpret_cast<const std::byte*>(lesson.source.data());
    if (auto saved = save_data_file(kernel, text, lesson.source.size()); !saved) return saved.error();
    return kernel;
}

}  // namespace cp
