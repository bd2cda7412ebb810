// `constant` header lines: parsing, checks against the file's __constant__ variables, and the values written
// into the compiled text as an initialiser on the declaration's own line, so both backends (NVRTC and the CPU
// shim) start the module with them and line numbers stay.
#include "core/kernel_file/constant_fill.h"

#include "core/kernel_file/host_code.h"
#include "core/kernel_file/kernel_file_parts.h"
#include "core/text_util.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace cp {

namespace {

int line_at(const std::string& s, size_t pos) {
    return 1 + int(std::count(s.begin(), s.begin() + long(std::min(pos, s.size())), '\n'));
}

std::string canonical_type(std::string t) {
    t = collapse_spaces(trim(t));
    if (t == "unsigned int" || t == "unsigned") return "uint";
    return t;
}

std::vector<std::string> split_lines(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
        size_t end = s.find('\n', start);
        if (end == std::string::npos) end = s.size();
        out.push_back(s.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

bool supported_type(const std::string& t) {
    return t == "float" || t == "double" || t == "int" || t == "uint";
}

Diagnostic diag(const KernelFile& f, int line, Severity s, std::string message) {
    Diagnostic d;
    d.file = f.path.string();
    d.line = line;
    d.severity = s;
    d.message = std::move(message);
    return d;
}

// Splits "a, b, c" at top-level commas.
std::vector<std::string> split_top(const std::string& text) {
    std::vector<std::string> out;
    int depth = 0;
    std::string cur;
    for (char c : text) {
        if (c == '(') ++depth;
        if (c == ')') --depth;
        if (c == ',' && depth == 0) {
            out.push_back(trim(cur));
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!trim(cur).empty()) out.push_back(trim(cur));
    return out;
}

std::string suggestion(const ConstantSymbol& s) {
    const std::string t = canonical_type(s.type);
    if (t == "float" || t == "double") return "constant " + s.name + ": " + t + "[COUNT] = gaussian(2.0)";
    return "constant " + s.name + ": " + (supported_type(t) ? t : std::string("int")) + "[COUNT] = values(1, 2, 3)";
}

Scope default_params(const KernelSpec& spec) {
    Scope scope;
    for (const ParamSpec& p : spec.params) {
        auto v = eval_expr(p.default_expr, scope);
        if (v) scope[p.name] = *v;
    }
    return scope;
}

}  // namespace

std::vector<ConstantFill> read_constant_lines(const KernelFile& f, std::vector<Diagnostic>* diagnostics) {
    std::vector<ConstantFill> out;
    if (!f.spec.has_metadata) return out;
    const std::vector<std::string> lines = split_lines(f.source);
    for (int l = f.spec.header_first_line; l <= f.spec.header_last_line && l >= 1 && l <= int(lines.size()); ++l) {
        const std::string text = trim(lines[size_t(l - 1)]);
        if (text.rfind("constant ", 0) != 0) continue;
        auto bad = [&](const std::string& why) {
            if (diagnostics)
                diagnostics->push_back(diag(f, l, Severity::Error,
                                            why + " Write it as `constant c_Kernel: float[17] = gaussian(sigma)`, "
                                                  "`constant c_Taps: int[3] = values(1, 2, 1)` or "
                                                  "`constant c_Scale: float = scale`."));
        };
        const size_t colon = text.find(':');
        const size_t eq = text.find('=');
        if (colon == std::string::npos || eq == std::string::npos || eq < colon) {
            bad("this `constant` line has no `NAME: TYPE = VALUES`.");
            continue;
        }
        ConstantFill c;
        c.line = l;
        c.name = trim(text.substr(9, colon - 9));
        std::string type = trim(text.substr(colon + 1, eq - colon - 1));
        c.count_expr = "1";
        if (const size_t open = type.find('['); open != std::string::npos) {
            const size_t close = type.find(']', open);
            if (close == std::string::npos) {
                bad("`[` without `]` in the type.");
                continue;
            }
            c.count_expr = trim(type.substr(open + 1, close - open - 1));
            type = trim(type.substr(0, open));
        }
        c.type = canonical_type(type);
        if (!supported_type(c.type)) {
            bad("`" + type + "` is not a type a `constant` line fills (float, double, int or uint).");
            continue;
        }
        const std::string fill = trim(text.substr(eq + 1));
        if (fill.empty()) {
            bad("nothing after `=`.");
            continue;
        }
        c.text = c.name + ": " + trim(text.substr(colon + 1, eq - colon - 1)) + " = " + fill;
        auto call = [&](const std::string& fn) -> std::optional<std::string> {
            if (fill.rfind(fn + "(", 0) != 0 || fill.back() != ')') return std::nullopt;
            return fill.substr(fn.size() + 1, fill.size() - fn.size() - 2);
        };
        if (auto g = call("gaussian")) {
            c.kind = ConstantFill::Kind::Gaussian;
            c.exprs = {trim(*g)};
        } else if (auto v = call("values")) {
            c.kind = ConstantFill::Kind::Values;
            c.exprs = split_top(*v);
        } else {
            c.kind = ConstantFill::Kind::Each;
            c.exprs = {fill};
        }
        std::vector<std::string> known;
        for (const ParamSpec& p : f.spec.params) known.push_back(p.name);
        bool ok = true;
        for (const std::string& e : c.exprs) {
            if (auto problem = check_expr(e, known)) {
                bad("`" + e + "`: " + problem->message + (problem->hint.empty() ? "" : " " + problem->hint) + ".");
                ok = false;
                break;
            }
        }
        if (auto problem = check_expr(c.count_expr, known); ok && problem) {
            bad("the count `" + c.count_expr + "`: " + problem->message + ".");
            ok = false;
        }
        if (ok) out.push_back(std::move(c));
    }
    return out;
}

std::vector<ConstantSymbol> find_constant_symbols(const std::string& compile_source) {
    std::vector<ConstantSymbol> out;
    const std::string code = blank_comments_and_strings(compile_source);
    const std::string word = "__constant__";
    for (size_t at = code.find(word); at != std::string::npos; at = code.find(word, at + word.size())) {
        if ((at > 0 && is_ident_char(code[at - 1])) || is_ident_char(code[std::min(at + word.size(), code.size() - 1)]))
            continue;
        // The declaration's start (after the previous `;`, `}` or `{`) and its `;`.
        size_t begin = at;
        while (begin > 0 && code[begin - 1] != ';' && code[begin - 1] != '}' && code[begin - 1] != '{') --begin;
        const size_t end = code.find(';', at);
        if (end == std::string::npos) break;
        const std::string decl = code.substr(begin, end - begin);
        if (decl.find('(') != std::string::npos && decl.find('=') == std::string::npos) continue;  // a function
        std::vector<std::string> words;
        const size_t stop = std::min({decl.find('['), decl.find('='), decl.size()});
        for (size_t i = 0; i < stop;) {
            if (is_ident_char(decl[i])) {
                const size_t b = i;
                while (i < stop && is_ident_char(decl[i])) ++i;
                words.push_back(decl.substr(b, i - b));
            } else {
                ++i;
            }
        }
        if (std::find(words.begin(), words.end(), "extern") != words.end() || words.size() < 2) continue;
        ConstantSymbol s;
        s.name = words.back();
        std::string type;
        for (size_t i = 0; i + 1 < words.size(); ++i) {
            const std::string& w = words[i];
            if (w == "__constant__" || w == "__device__" || w == "static" || w == "const" || w == "volatile" ||
                w == "__align__")
                continue;
            type += (type.empty() ? "" : " ") + w;
        }
        s.type = type;
        s.initialised = decl.find('=') != std::string::npos;
        s.array = decl.find('[') < decl.find('=');
        s.end = end;
        s.line = line_at(compile_source, at);
        out.push_back(s);
    }
    return out;
}

Result<std::string> fill_constants(const KernelFile& f, const Scope& params) {
    return fill_constants_in(f, params, separate_host_code(f.source).kernel_source);
}

Result<std::string> fill_constants_in(const KernelFile& f, const Scope& params, std::string text) {
    const std::vector<ConstantFill> fills = read_constant_lines(f);
    std::vector<ConstantSymbol> symbols = find_constant_symbols(text);
    // Last declaration first, so earlier positions stay valid.
    std::sort(symbols.begin(), symbols.end(), [](const auto& a, const auto& b) { return a.end > b.end; });
    for (const ConstantSymbol& s : symbols) {
        auto fill = std::find_if(fills.begin(), fills.end(), [&](const ConstantFill& c) { return c.name == s.name; });
        if (fill == fills.end() || s.initialised) continue;
        const std::string where = "the `constant " + fill->name + "` line (line " + std::to_string(fill->line) + ")";
        auto count = eval_expr(fill->count_expr, params);
        if (!count) return Error{where + ": " + count.error().message, count.error().hint, ErrorKind::Metadata};
        const long n = std::lround(*count);
        if (!s.array && n != 1)
            return make_error(ErrorKind::Metadata,
                              where + " gives " + std::to_string(n) + " values but `" + s.name +
                                  "` is one value (line " + std::to_string(s.line) + ")",
                              "write it without `[...]`: `constant " + s.name + ": " + fill->type + " = ...`");
        if (n < 1 || n > 16384)
            return make_error(ErrorKind::Metadata, where + " gives " + std::to_string(n) + " elements",
                              "give 1 to 16384 (constant memory holds 64 KB)");
        std::vector<double> v;
        if (fill->kind == ConstantFill::Kind::Values) {
            if (long(fill->exprs.size()) != n)
                return make_error(ErrorKind::Metadata,
                                  where + " lists " + std::to_string(fill->exprs.size()) + " values for " +
                                      std::to_string(n) + " elements",
                                  "give one value per element");
            for (const std::string& e : fill->exprs) {
                auto x = eval_expr(e, params);
                if (!x) return Error{where + ": " + x.error().message, x.error().hint, ErrorKind::Metadata};
                v.push_back(*x);
            }
        } else {
            auto x = eval_expr(fill->exprs[0], params);
            if (!x) return Error{where + ": " + x.error().message, x.error().hint, ErrorKind::Metadata};
            if (fill->kind == ConstantFill::Kind::Each) {
                v.assign(size_t(n), *x);
            } else {
                if (!(*x > 0))
                    return make_error(ErrorKind::Metadata,
                                      where + ": gaussian(" + fill->exprs[0] + ") needs a sigma above 0",
                                      "give a positive sigma, e.g. gaussian(2.0)");
                double total = 0;
                const double mid = double(n - 1) / 2;
                for (long i = 0; i < n; ++i) {
                    v.push_back(std::exp(-(i - mid) * (i - mid) / (2 * *x * *x)));
                    total += v.back();
                }
                for (double& w : v) w /= total;
            }
        }
        std::string init = " = {";
        for (size_t i = 0; i < v.size(); ++i) {
            char buf[64];
            if (fill->type == "float")
                std::snprintf(buf, sizeof buf, "%.9gf", v[i]);
            else if (fill->type == "double")
                std::snprintf(buf, sizeof buf, "%.17g", v[i]);
            else if (fill->type == "uint")
                std::snprintf(buf, sizeof buf, "%lluu", static_cast<unsigned long long>(std::llround(v[i])));
            else
                std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(std::llround(v[i])));
            std::string num = buf;
            if ((fill->type == "float" || fill->type == "double") && num.find_first_of(".eEn") == std::string::npos)
                num.insert(fill->type == "float" ? num.size() - 1 : num.size(), ".0");
            init += (i ? ", " : "") + num;
        }
        init += "}";
        if (!s.array) init = " = " + init.substr(4, init.size() - 5);
        // The declared size must hold exactly these values: a shorter header would leave zeros unannounced.
        const std::string check = " static_assert(sizeof(" + s.name + ") == " + std::to_string(n) + " * sizeof(" +
                                  s.name + "[0]), \"the header's `constant " + s.name + "` line gives " +
                                  std::to_string(n) + " values: make its count the array's size\");";
        if (s.array) text.insert(s.end + 1, check);
        text.insert(s.end, init);
    }
    return text;
}

void check_and_fill_constants(KernelFile& f) {
    const std::vector<ConstantFill> fills = read_constant_lines(f, &f.diagnostics);
    const std::vector<ConstantSymbol> symbols = find_constant_symbols(text_to_compile(f));
    std::vector<std::string> names;
    for (const ConstantSymbol& s : symbols) names.push_back(s.name);
    bool fills_any = false;
    for (const ConstantFill& c : fills) {
        auto s =
            std::find_if(symbols.begin(), symbols.end(), [&](const ConstantSymbol& x) { return x.name == c.name; });
        if (s == symbols.end()) {
            f.diagnostics.push_back(
                diag(f, c.line, Severity::Error,
                     "`constant " + c.name + "` names no `__constant__` variable of this file" +
                         (names.empty() ? std::string(" (it has none)") : "; it has " + join(names, ", ")) +
                         ". Use the variable's name as the source declares it."));
            continue;
        }
        if (s->initialised) {
            f.diagnostics.push_back(diag(f, c.line, Severity::Error,
                                         "`" + c.name + "` already has values in the source (line " +
                                             std::to_string(s->line) +
                                             "); remove its initialiser or this `constant` line."));
            continue;
        }
        if (canonical_type(s->type) != c.type) {
            f.diagnostics.push_back(diag(f, c.line, Severity::Error,
                                         "`" + c.name + "` is declared `" + s->type + "` (line " +
                                             std::to_string(s->line) + ") but this line fills `" + c.type +
                                             "`; write `constant " + c.name + ": " + canonical_type(s->type) +
                                             "[...] = ...`."));
            continue;
        }
        fills_any = true;
    }
    const bool host_sets = f.source.find("cudaMemcpyToSymbol") != std::string::npos;
    for (const ConstantSymbol& s : symbols) {
        if (s.initialised) continue;
        if (std::any_of(fills.begin(), fills.end(), [&](const ConstantFill& c) { return c.name == s.name; })) continue;
        f.diagnostics.push_back(
            diag(f, s.line, Severity::Warning,
                 "`" + s.name + "` is never set: its values are all zero" +
                     (host_sets ? std::string(" (the host code's cudaMemcpyToSymbol is left out with the rest of it)")
                                : "") +
                     "; set it in the header: " + suggestion(s)));
    }
    if (!fills_any) return;
    auto filled = fill_constants(f, default_params(f.spec));
    if (filled) f.compile_source = std::move(*filled);
    // else: a default that needs an image's size; the session fills it when the run is resolved
}

std::vector<std::string> constant_lines_text(const KernelFile& f) {
    std::vector<std::string> out;
    for (const ConstantFill& c : read_constant_lines(f)) out.push_back(c.text);
    return out;
}

}  // namespace cp
