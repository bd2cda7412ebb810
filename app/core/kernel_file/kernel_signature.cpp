// Choosing the kernel among the file's __global__ functions (found by scan_kernels, kernel_scan.h) and reading its
// parameters (comments, strings and preprocessor lines blanked first), to check them against the metadata header.
#include "core/kernel_file/kernel_file.h"
#include "core/kernel_file/kernel_file_parts.h"
#include "core/kernel_file/kernel_scan.h"
#include "core/text_util.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_set>
#include <set>

namespace cp {

namespace {

// A token of the code, with its text: the signature reader compares texts.
struct Token {
    std::string text;
    size_t pos;
    int line;
    bool identifier() const {
        return !text.empty() && (std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_');
    }
};

// The source with comments, string and character literals and preprocessor lines replaced by spaces (newlines and
// the code's own whitespace kept, so offsets and line numbers still match the original text), and the tokens of
// what is left: both from one pass of the one tokenizer (tokenize_code, kernel_scan.h).
struct Code {
    std::string text;
    std::vector<Token> tokens;
};

Code read_code(const std::string& src) {
    Code code{std::string(src.size(), ' '), {}};
    std::string& out = code.text;
    for (size_t k = 0; k < src.size(); ++k)
        if (src[k] == '\n' || src[k] == '\t' || src[k] == '\r') out[k] = src[k];
    for (const CodeToken& t : tokenize_code(src)) {
        if (t.kind == CodeToken::String || t.kind == CodeToken::Char || t.kind == CodeToken::Directive) {
            for (size_t k = t.begin; k < t.end; ++k)
                if (src[k] != '\n') out[k] = ' ';
            continue;
        }
        std::copy(src.begin() + long(t.begin), src.begin() + long(t.end), out.begin() + long(t.begin));
        code.tokens.push_back({src.substr(t.begin, t.end - t.begin), t.begin, t.line});
    }
    return code;
}

// Index of the token closing the bracket opened at `open`, or tokens.size().
size_t matching(const std::vector<Token>& tokens, size_t open) {
    const std::string o = tokens[open].text;
    const std::string c = o == "(" ? ")" : o == "[" ? "]" : o == "{" ? "}" : ">";
    int depth = 0;
    for (size_t i = open; i < tokens.size(); ++i) {
        if (tokens[i].text == o) ++depth;
        if (tokens[i].text == c && --depth == 0) return i;
    }
    return tokens.size();
}

const std::set<std::string>& qualifiers() {
    static const std::set<std::string> q = {"const", "volatile", "__restrict__", "__restrict", "restrict",
                                            "struct", "__grid_constant__"};
    return q;
}

const std::set<std::string>& builtin_type_words() {
    static const std::set<std::string> w = {"int", "float", "double", "char", "short", "long", "unsigned",
                                            "signed", "void", "bool", "size_t"};
    return w;
}

// One template parameter of a kernel: `class T`, `unsigned int blockSize`, `int BLOCK_SIZE = 16`.
struct TemplateParam {
    std::string name;
    bool is_type = false;
    std::string default_text;
};

struct FoundKernel {
    std::string name;
    int line = 0;
    size_t params_open = 0, params_close = 0;  // token indices of ( and )
    bool definition = false;
    bool is_template = false;
    std::string template_text;  // `template <class T, unsigned int blockSize>`, for messages
    std::vector<TemplateParam> template_params;
};

// Splits tokens [begin, end) at commas outside brackets.
std::vector<std::pair<size_t, size_t>> split_top_level(const std::vector<Token>& tokens, size_t begin, size_t end) {
    std::vector<std::pair<size_t, size_t>> parts;
    int depth = 0;
    size_t from = begin;
    for (size_t i = begin; i < end; ++i) {
        const std::string& t = tokens[i].text;
        if (t == "(" || t == "[" || t == "<" || t == "{") ++depth;
        if (t == ")" || t == "]" || t == ">" || t == "}") --depth;
        if (t == "," && depth == 0) {
            parts.emplace_back(from, i);
            from = i + 1;
        }
    }
    if (from < end) parts.emplace_back(from, end);
    return parts;
}

std::string tokens_text(const std::string& code, const std::vector<Token>& tokens, size_t begin, size_t end) {
    if (begin >= end) return {};
    return collapse_spaces(code.substr(tokens[begin].pos, tokens[end - 1].pos + tokens[end - 1].text.size() - tokens[begin].pos));
}

std::vector<TemplateParam> read_template_params(const std::string& code, const std::vector<Token>& tokens, size_t open,
                                                size_t close) {
    std::vector<TemplateParam> out;
    for (auto [b, e] : split_top_level(tokens, open + 1, close)) {
        TemplateParam p;
        size_t stop = e;
        for (size_t i = b; i < e; ++i)
            if (tokens[i].text == "=") {
                stop = i;
                p.default_text = tokens_text(code, tokens, i + 1, e);
                break;
            }
        p.is_type = tokens[b].text == "class" || tokens[b].text == "typename";
        for (size_t i = stop; i-- > b;)
            if (tokens[i].identifier()) {
                p.name = tokens[i].text;
                break;
            }
        out.push_back(p);
    }
    return out;
}

// A `kernel:` value split into the function's name and its template arguments: `reduce<float, 256>`.
struct WantedKernel {
    std::string name;
    std::vector<std::string> args;
    bool has_args = false;
};

WantedKernel split_wanted(const std::string& text) {
    WantedKernel w;
    const size_t lt = text.find('<');
    w.name = trim(text.substr(0, lt));
    if (w.name.rfind("::", 0) == 0) w.name = w.name.substr(2);
    if (lt == std::string::npos) return w;
    w.has_args = true;
    const size_t gt = text.rfind('>');
    const std::string inner = text.substr(lt + 1, gt == std::string::npos || gt < lt ? std::string::npos : gt - lt - 1);
    int depth = 0;
    std::string part;
    for (char c : inner) {
        if (c == '<' || c == '(') ++depth;
        if (c == '>' || c == ')') --depth;
        if (c == ',' && depth == 0) {
            w.args.push_back(trim(part));
            part.clear();
        } else {
            part += c;
        }
    }
    if (!trim(part).empty()) w.args.push_back(trim(part));
    return w;
}

// `reduce<float, 256>` for a kernel's template parameters, as an example to copy.
std::string example_instantiation(const FoundKernel& k) {
    std::vector<std::string> args;
    for (const auto& p : k.template_params) args.push_back(p.is_type ? "float" : "256");
    return k.name + "<" + join(args, ", ") + ">";
}

SignatureParam read_param(const std::string& source, const std::vector<Token>& tokens, size_t begin, size_t end,
                          size_t index, const std::string& kernel, const std::string& file,
                          const std::map<std::string, std::string>& template_args, std::vector<Diagnostic>& diags,
                          bool& ok) {
    SignatureParam p;
    // A default argument (`= 5`) is not part of the type.
    for (size_t i = begin; i < end; ++i)
        if (tokens[i].text == "=") end = i;
    size_t name_index = end;
    for (size_t i = end; i-- > begin;) {
        if (tokens[i].text == "]") {  // `float a[]`: the name is before the brackets
            while (i > begin && tokens[i].text != "[") --i;
            continue;
        }
        if (tokens[i].identifier() && !qualifiers().count(tokens[i].text)) name_index = i;
        break;
    }
    const size_t text_end = end < tokens.size() ? tokens[end].pos : source.size();
    const std::string whole = collapse_spaces(source.substr(tokens[begin].pos, text_end - tokens[begin].pos));
    // A lone type (`float*`, `int`) has no name to match the metadata against.
    const bool unnamed = name_index == end || builtin_type_words().count(tokens[name_index].text) ||
                         std::none_of(tokens.begin() + static_cast<long>(begin), tokens.begin() + static_cast<long>(name_index),
                                      [](const Token& t) { return t.identifier() && !qualifiers().count(t.text); });
    if (unnamed) {
        diags.push_back(make_diagnostic(file, tokens[begin].line, 0, Severity::Error,
                                        "parameter " + std::to_string(index + 1) + " of `" + kernel + "` (`" + whole +
                                            "`) has no name; name it so the metadata can describe it."));
        ok = false;
        return p;
    }
    p.name = tokens[name_index].text;
    p.line = tokens[name_index].line;
    std::string type_text, base;
    for (size_t i = begin; i < end; ++i) {
        if (i == name_index) continue;
        const auto arg = template_args.find(tokens[i].text);  // `T` of `reduce<float, 256>` is `float`
        const std::string& t = arg == template_args.end() ? tokens[i].text : arg->second;
        if (t == "*" || t == "[") p.is_pointer = true;
        const bool glue = t == "*" || t == "&" || t == "[" || t == "]" || (i > begin && (tokens[i - 1].text == "[" || tokens[i - 1].text == ":"));
        const bool glue_next = t == ":";
        type_text += (type_text.empty() || glue || glue_next ? "" : " ") + t;
        if (t == "*" || t == "&" || t == "[" || t == "]" || qualifiers().count(t)) continue;
        if (i > begin && tokens[i - 1].text == "[") continue;  // array extent
        base += (base.empty() ? "" : " ") + t;
    }
    p.type_text = type_text;
    p.base_type = base;
    return p;
}

}  // namespace

std::string blank_comments_and_strings(const std::string& source) { return read_code(source).text; }

std::optional<KernelSignature> parse_signature(const std::string& source, const std::string& file,
                                               std::vector<Diagnostic>& diagnostics, const std::string& wanted_text,
                                               int wanted_line) {
    const Code read = read_code(source);
    const std::string& code = read.text;
    const std::vector<Token>& tokens = read.tokens;
    const KernelScan scan = scan_kernels(source);
    for (const KernelScanProblem& problem : scan.problems) {
        if (problem.kind == KernelScanProblem::NotAFunction) {
            diagnostics.push_back(make_diagnostic(file, problem.line, 0, Severity::Error,
                                                  "`__global__` is not followed by a function such as "
                                                  "`__global__ void my_kernel(float* out, int n)`."));
        } else {
            diagnostics.push_back(make_diagnostic(file, problem.line, 0, Severity::Error,
                                                  "the parameter list of `" + problem.name + "` is never closed with `)`."));
            return std::nullopt;
        }
    }
    // The scan's offsets as indices into this file's tokens (blanking keeps offsets), to read the parameters.
    auto token_at = [&](size_t offset) {
        const auto it = std::lower_bound(tokens.begin(), tokens.end(), offset,
                                         [](const Token& t, size_t at) { return t.pos < at; });
        return it != tokens.end() && it->pos == offset ? size_t(it - tokens.begin()) : tokens.size();
    };
    std::vector<FoundKernel> kernels;
    for (const ScannedKernel& scanned : scan.kernels) {
        FoundKernel k;
        k.name = scanned.name;
        k.line = scanned.line;
        k.params_open = token_at(scanned.params_open);
        k.params_close = token_at(scanned.params_close);
        k.definition = scanned.definition;
        if (k.params_open >= tokens.size() || k.params_close >= tokens.size()) continue;
        if (scanned.is_template) {
            const size_t open = token_at(scanned.template_open), close = token_at(scanned.template_close);
            if (open >= tokens.size() || close >= tokens.size()) continue;
            k.is_template = true;
            k.template_params = read_template_params(code, tokens, open, close);
            k.template_text = scanned.template_text;
        }
        kernels.push_back(std::move(k));
    }

    // Declarations of a kernel that is also defined are not a second kernel.
    // (A set of names, not a search of `defined` per kernel: a paste with thousands of kernels stays linear.)
    std::vector<FoundKernel> defined;
    std::unordered_set<std::string> defined_names;
    for (const auto& k : kernels)
        if (k.definition && defined_names.insert(k.name).second) defined.push_back(k);
    if (defined.empty()) {
        if (!kernels.empty()) {
            diagnostics.push_back(make_diagnostic(file, kernels[0].line, 0, Severity::Error,
                                                  "`" + kernels[0].name + "` is declared but never defined; give it a body `{ ... }`."));
        } else if (!has_errors(diagnostics)) {
            diagnostics.push_back(make_diagnostic(file, 0, 0, Severity::Error,
                                                  "no `__global__` function found: a kernel file defines at least one "
                                                  "kernel, e.g. `extern \"C\" __global__ void my_kernel(float* out, int n) { ... }`."));
        }
        return std::nullopt;
    }
    std::string list;
    for (const auto& k : defined) list += (list.empty() ? "" : ", ") + ("`" + k.name + "` (line " + std::to_string(k.line) + ")");

    const WantedKernel wanted = split_wanted(wanted_text);
    const FoundKernel* chosen = nullptr;
    if (!wanted.name.empty()) {
        for (const auto& k : defined)
            if (k.name == wanted.name) chosen = &k;
        if (!chosen) {
            std::vector<std::string> names;
            for (const auto& k : defined) names.push_back(k.name);
            diagnostics.push_back(make_diagnostic(file, wanted_line, 0, Severity::Error,
                                                  "`kernel: " + wanted_text + "` names no `__global__` function of this file; its kernels are " +
                                                      list + "." + did_you_mean(wanted.name, names)));
            return std::nullopt;
        }
    } else if (defined.size() > 1) {
        diagnostics.push_back(make_diagnostic(file, defined[1].line, 0, Severity::Error,
                                              "found " + std::to_string(defined.size()) + " `__global__` kernels: " + list +
                                                  "; say which one runs with a header line such as `kernel: " +
                                                  (defined[0].is_template ? example_instantiation(defined[0]) : defined[0].name) + "`."));
        return std::nullopt;
    } else {
        chosen = &defined[0];
    }
    const FoundKernel& k = *chosen;

    // Templates: the instantiation the header names gives the parameters their types.
    std::map<std::string, std::string> template_args;
    std::vector<std::string> args = wanted.args;
    if (k.is_template) {
        for (size_t a = args.size(); a < k.template_params.size(); ++a) {
            if (k.template_params[a].default_text.empty()) break;
            args.push_back(k.template_params[a].default_text);
        }
        if (args.size() != k.template_params.size()) {
            const int line = wanted_line > 0 ? wanted_line : k.line;
            const std::string given = wanted.has_args ? "`kernel: " + wanted_text + "` gives " + std::to_string(wanted.args.size()) +
                                                            " template argument(s) but "
                                                      : "";
            diagnostics.push_back(make_diagnostic(
                file, line, 0, Severity::Error,
                given + "`" + k.name + "` (line " + std::to_string(k.line) + ") is a template (`" + k.template_text +
                    "`), so the compiler needs " + std::to_string(k.template_params.size()) +
                    " template argument(s) to build it: say which instantiation runs with a header line such as `kernel: " +
                    example_instantiation(k) + "` (with the types and values you want)."));
            return std::nullopt;
        }
        for (size_t a = 0; a < args.size(); ++a) template_args[k.template_params[a].name] = args[a];
    } else if (wanted.has_args) {
        diagnostics.push_back(make_diagnostic(file, wanted_line, 0, Severity::Error,
                                              "`kernel: " + wanted_text + "` gives template arguments, but `" + k.name + "` (line " +
                                                  std::to_string(k.line) + ") is not a template; write `kernel: " + k.name + "`."));
        return std::nullopt;
    }

    KernelSignature sig;
    sig.name = k.name;
    sig.launch_name = k.is_template ? k.name + "<" + join(args, ", ") + ">" : k.name;
    sig.line = k.line;
    bool ok = true;
    for (auto [b, e] : split_top_level(tokens, k.params_open + 1, k.params_close)) {
        const bool only_void = e == b + 1 && tokens[b].text == "void";
        if (only_void) continue;
        if (b == e) {
            diagnostics.push_back(make_diagnostic(file, tokens[b].line, 0, Severity::Error,
                                                  "empty parameter in the parameter list of `" + k.name + "`."));
            ok = false;
            continue;
        }
        sig.params.push_back(
            read_param(code, tokens, b, e, sig.params.size(), k.name, file, template_args, diagnostics, ok));
    }
    if (!ok) return std::nullopt;
    return sig;
}

}  // namespace cp

namespace cp {

std::optional<KernelSignature> parse_function(const std::string& source, const std::string& name, const std::string& file,
                                              std::vector<Diagnostic>& diagnostics) {
    const Code read = read_code(source);
    const std::string& code = read.text;
    const std::vector<Token>& tokens = read.tokens;
    for (size_t i = 0; i + 1 < tokens.size(); ++i) {
        if (tokens[i].text != name || tokens[i + 1].text != "(") continue;
        if (i > 0 && (tokens[i - 1].text == "." || tokens[i - 1].text == ">" || tokens[i - 1].text == ":")) continue;
        const size_t close = matching(tokens, i + 1);
        if (close >= tokens.size()) continue;
        // A definition: `)` then perhaps `noexcept`/attributes, then `{`. A call or declaration is skipped.
        size_t j = close + 1;
        while (j < tokens.size() && tokens[j].identifier() && tokens[j].text != "return") ++j;
        if (j >= tokens.size() || tokens[j].text != "{") continue;
        KernelSignature sig;
        sig.name = name;
        sig.launch_name = name;
        sig.line = tokens[i].line;
        bool ok = true;
        size_t begin = i + 2;
        int depth = 0;
        for (size_t k = begin; k <= close; ++k) {
            const std::string& t = tokens[k].text;
            if (k < close && (t == "(" || t == "[" || t == "<" || t == "{")) ++depth;
            if (k < close && (t == ")" || t == "]" || t == ">" || t == "}")) --depth;
            if (k == close || (t == "," && depth == 0)) {
                const bool only_void = k == begin + 1 && tokens[begin].text == "void";
                if (k > begin && !only_void)
                    sig.params.push_back(read_param(code, tokens, begin, k, sig.params.size(), name, file, {}, diagnostics, ok));
                begin = k + 1;
            }
        }
        if (!ok) return std::nullopt;
        return sig;
    }
    return std::nullopt;
}

}  // namespace cp
