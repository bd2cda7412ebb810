// Finding a lesson's in-file CPU reference and checking its parameters against the header, so that a
// mistake is marked on its line with the fix before anything is compiled.
#include "core/kernel_file/reference_section.h"

#include "core/kernel_file/kernel_file_parts.h"
#include "core/text_util.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace cp {

namespace {

// A directive line without its comments: `#ifdef PLAYGROUND_REFERENCE // host reference` is the directive
// `#ifdef PLAYGROUND_REFERENCE` to the preprocessor, so it must be here too.
std::string without_comments(const std::string& line) {
    std::string out;
    for (size_t k = 0; k < line.size(); ++k) {
        if (line.compare(k, 2, "//") == 0) break;
        if (line.compare(k, 2, "/*") == 0) {
            const size_t end = line.find("*/", k + 2);
            if (end == std::string::npos) break;
            out += ' ';
            k = end + 1;
            continue;
        }
        out += line[k];
    }
    return out;
}

// "#  ifdef  NAME  // why" -> {"ifdef", "NAME"}; not a directive -> {"", ""}.
std::pair<std::string, std::string> directive(const std::string& line) {
    size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos || line[i] != '#') return {};
    std::istringstream words(without_comments(line.substr(i + 1)));
    std::string word, rest;
    words >> word;
    std::getline(words, rest);
    return {word, collapse_spaces(rest)};
}

bool opens_reference(const std::string& word, const std::string& rest) {
    if (word == "ifdef") return rest == kReferenceMacro;
    if (word != "if") return false;
    const std::string m = kReferenceMacro;
    return rest == "defined(" + m + ")" || rest == "defined " + m || rest == "defined (" + m + ")";
}

bool scalar_type_ok(const std::string& t) {
    static const std::vector<std::string> more = {"long long", "long",    "int64_t",  "unsigned long long", "uint64_t",
                                                  "size_t",    "int32_t", "uint32_t", "unsigned",           "bool"};
    return parse_scalar_type(t).has_value() || std::find(more.begin(), more.end(), t) != more.end();
}

}  // namespace

std::string reference_section(const std::string& source) {
    std::string out;
    out.reserve(source.size());
    int depth = 0;  // > 0: inside a reference block, counting nested #if
    size_t start = 0;
    while (start <= source.size()) {
        size_t end = source.find('\n', start);
        const bool last = end == std::string::npos;
        if (last) end = source.size();
        const std::string line = source.substr(start, end - start);
        const auto [word, rest] = directive(line);
        bool keep = depth > 0;
        if (depth == 0 && opens_reference(word, rest)) {
            depth = 1;
            keep = true;
        } else if (depth > 0) {
            if (word == "if" || word == "ifdef" || word == "ifndef") ++depth;
            if (word == "endif") --depth;
        }
        if (keep) out += line;
        if (last) break;
        out += '\n';
        start = end + 1;
    }
    return out;
}

std::string without_reference_sections(const std::string& source) {
    const std::string kept = reference_section(source);
    std::string out = source;
    // Both texts have the same lines; a line the reference section kept is blanked here (same length).
    size_t at = 0, at_kept = 0;
    while (at < out.size()) {
        const size_t end = std::min(out.find('\n', at), out.size());
        const size_t end_kept = std::min(kept.find('\n', at_kept), kept.size());
        if (end_kept > at_kept)
            for (size_t k = at; k < end; ++k) out[k] = ' ';
        at = end + 1;
        at_kept = end_kept + 1;
    }
    return out;
}

std::string suggested_reference_signature(const KernelSpec& spec, const std::string& name) {
    std::vector<std::string> params;
    for (const auto& b : spec.buffers)
        params.push_back(std::string(b.direction == Direction::In ? "const " : "") + elem_info(b.type).name + "* " +
                         b.name);
    for (const auto& p : spec.params) params.push_back(std::string(scalar_type_name(p.type)) + " " + p.name);
    return "static void " + name + "(" + join(params, ", ") + ")";
}

void check_reference(KernelFile& f, int reference_line) {
    const KernelSpec& spec = f.spec;
    if (spec.reference.empty()) return;
    const std::string file = f.path.string();
    auto error = [&](int line, std::string message) {
        f.diagnostics.push_back(make_diagnostic(file, line, 0, Severity::Error, std::move(message)));
    };
    const std::string name = spec.reference;
    const std::string example = "`#ifdef PLAYGROUND_REFERENCE` / `" + suggested_reference_signature(spec, name) +
                                " { plain loops }` / `#endif`";
    std::vector<Diagnostic> ignored;
    f.reference_fn = parse_function(reference_section(f.source), name, file, f.diagnostics);
    if (!f.reference_fn) {
        if (has_errors(f.diagnostics)) return;
        if (parse_function(f.source, name, file, ignored)) {
            error(reference_line, "the reference `" + name +
                                      "` must be inside an `#ifdef PLAYGROUND_REFERENCE` ... "
                                      "`#endif` block, so that NVRTC never compiles it and it cannot call the kernel.");
        } else {
            error(reference_line, "`reference: " + name +
                                      "` names no function in this file. Add the reference as "
                                      "plain C++ at the end of the file: " +
                                      example +
                                      ". (Leave out `reference:` if "
                                      "there is none.)");
        }
        return;
    }
    const KernelSignature& ref = *f.reference_fn;
    const std::string in_ref = "the reference `" + name + "` (line " + std::to_string(ref.line) + ")";
    std::vector<std::string> header_names;
    for (const auto& b : spec.buffers) header_names.push_back(b.name);
    for (const auto& p : spec.params) header_names.push_back(p.name);
    bool takes_output = false;
    for (const auto& p : ref.params) {
        const BufferSpec* b = f.buffer(p.name);
        const ParamSpec* m = b ? nullptr : f.param(p.name);
        if (p.type_text.find('&') != std::string::npos) {
            error(p.line, "parameter `" + p.name + "` of " + in_ref + " is a C++ reference (`" + p.type_text +
                              "`); take buffers as pointers and params by value, e.g. `" +
                              suggested_reference_signature(spec, name) + "`.");
            continue;
        }
        if (!b && !m) {
            error(p.line, "parameter `" + p.name + "` of " + in_ref +
                              " is neither a buffer nor a param of the header; "
                              "reference parameters are matched to them by name (" +
                              join(header_names, ", ") + ")." + did_you_mean(p.name, header_names));
            continue;
        }
        if (b) {
            const std::string type = elem_info(b->type).name;
            const bool input = b->direction == Direction::In;
            const std::string want = std::string(input ? "const " : "") + type + "* " + b->name;
            if (!p.is_pointer || parse_elem_type(p.base_type) != b->type) {
                error(p.line, "parameter `" + p.name + "` of " + in_ref + " is `" + p.type_text + "` but buffer `" +
                                  b->name + "` (line " + std::to_string(b->line) + ") holds " + type +
                                  "; declare it `" + want + "`.");
                continue;
            }
            if (input && !points_to_const(p)) {
                error(p.line, "buffer `" + b->name + "` is an input, so " + in_ref +
                                  " must not change it: declare it `" + want + "`.");
            } else if (!input && points_to_const(p)) {
                error(p.line, "buffer `" + b->name + "` is `" + direction_name(b->direction) + "`, so " + in_ref +
                                  " writes the expected contents into it: declare it `" + want + "` (without const).");
            }
            takes_output = takes_output || !input;
            continue;
        }
        if (p.is_pointer || !scalar_type_ok(p.base_type)) {
            error(p.line, "parameter `" + p.name + "` of " + in_ref + " is `" + p.type_text + "` but `" + m->name +
                              "` is a param (line " + std::to_string(m->line) + "); declare it `" +
                              scalar_type_name(m->type) + " " + m->name + "`.");
        }
    }
    if (!takes_output && !has_errors(f.diagnostics)) {
        error(ref.line, in_ref +
                            " takes no `out` or `inout` buffer, so it computes nothing to compare; add the "
                            "outputs as parameters, e.g. `" +
                            suggested_reference_signature(spec, name) + "`.");
    }
    for (const auto& b : spec.buffers) {
        if (b.direction == Direction::In) continue;
        const bool taken = std::any_of(ref.params.begin(), ref.params.end(),
                                       [&](const SignatureParam& p) { return p.name == b.name; });
        if (!taken) {
            f.diagnostics.push_back(make_diagnostic(
                file, ref.line, 0, Severity::Warning,
                "buffer `" + b.name + "` is an output but " + in_ref + " does not take it, so it is not checked."));
        }
    }
}

}  // namespace cp
